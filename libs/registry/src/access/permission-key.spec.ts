import { permissionSetKey } from './permission-key';

describe('permissionSetKey', () => {
  it('is equal for equal roles and claim names, whatever the claim order', () => {
    expect(permissionSetKey(['a', 'b'], ['region', 'store'])).toBe(
      permissionSetKey(['a', 'b'], ['store', 'region']),
    );
  });

  it('differs for other roles, other claims, or a user with own rules', () => {
    const base = permissionSetKey(['a'], ['region']);
    expect(permissionSetKey(['b'], ['region'])).not.toBe(base);
    expect(permissionSetKey(['a'], [])).not.toBe(base);
    expect(permissionSetKey(['a'], ['region'], 'dave')).not.toBe(base);
  });
});
