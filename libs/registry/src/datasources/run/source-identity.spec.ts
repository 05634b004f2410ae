import { identityClaims } from './source-identity';

describe('identityClaims: who asks, as a pass_identity source is told', () => {
  const alice = {
    tenantId: 'acme',
    userId: 'alice',
    roles: ['analyst'],
    claims: { region: 'north', sub: 'mallory', email: 'a@acme.test' },
  };

  it('gives sub, tenant and roles, and only the claims the operator lists', () => {
    expect(JSON.parse(identityClaims(alice, ['region']))).toEqual({
      sub: 'alice',
      tenant: 'acme',
      roles: ['analyst'],
      region: 'north',
    });
  });

  it("never lets a token claim stand in for the gateway's own sub, tenant or roles", () => {
    expect(JSON.parse(identityClaims(alice, ['sub', 'email'])).sub).toBe('alice');
  });
});
