import { argumentBoundsProblem, MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH } from './argument-bounds';

const nested = (levels: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

describe('argumentBoundsProblem', () => {
  it('accepts ordinary arguments, up to the depth limit', () => {
    expect(argumentBoundsProblem({ region: 'east', range: { start: '2025-01-01' } })).toBe(
      undefined,
    );
    expect(argumentBoundsProblem(nested(MAX_ARGUMENT_DEPTH))).toBeUndefined();
    expect(argumentBoundsProblem(undefined)).toBeUndefined();
  });

  it('refuses 200,000 levels of nesting without overflowing the stack', () => {
    expect(argumentBoundsProblem({ x: nested(200_000) })).toMatch(/nested more than 32 levels/);
    expect(argumentBoundsProblem(nested(MAX_ARGUMENT_DEPTH + 1))).toMatch(/nested/);
  });

  it('refuses values larger than the byte bound, in strings, keys or many small leaves', () => {
    expect(argumentBoundsProblem({ s: 'x'.repeat(MAX_ARGUMENT_BYTES) })).toMatch(/larger than/);
    expect(argumentBoundsProblem({ ['k'.repeat(MAX_ARGUMENT_BYTES)]: 1 })).toMatch(/larger than/);
    expect(argumentBoundsProblem(new Array(MAX_ARGUMENT_BYTES / 4).fill(0))).toMatch(/larger than/);
  });
});
