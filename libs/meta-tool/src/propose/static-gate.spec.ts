import { initSqlParser } from '@app/templates';
import { staticGate } from './static-gate';

const whitelist = { defaultSchema: 'tenant_acme', tables: ['orders', 'customers'] };
const gate = (name: string, code: string) =>
  staticGate({ name, code, reservedNames: new Set(['meta_tool']), whitelist });
const tool = (body: string) =>
  `export default { name: 't', description: 'd', schema: { type: 'object' }, async run(args, ctx) { ${body} } };`;

// loading the parser (WebAssembly) can take seconds on a loaded machine
beforeAll(() => initSqlParser(), 30_000);

describe('staticGate (pure: no execution)', () => {
  it('passes a well-formed tool whose literal SQL is allowed', () => {
    expect(
      gate('t', tool("return ctx.query('SELECT count(*) FROM orders WHERE id = $1', [1]);")),
    ).toEqual([]);
  });

  it('checks every literal passed to .query, including template literals without ${}', () => {
    const violations = gate(
      't',
      tool("await ctx.query(`SELECT * FROM orders`); return ctx.query('SELECT * FROM pg_shadow');"),
    );
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({
      rule: 'sql',
      message: expect.stringContaining('on line 1 is refused'),
    });
    expect(violations[0].message).toContain('got "SELECT * FROM pg_shadow"');
  });

  it('cannot judge SQL built at run time; that is left to the runtime guard', () => {
    expect(gate('t', tool('const t = args.t; return ctx.query(`SELECT * FROM ${t}`);'))).toEqual(
      [],
    );
  });

  it.each([
    ['Name', 'name'],
    ['meta_tool', 'name_clash'],
    ['query_report_x', 'name_clash'],
  ])('refuses the name %p (%s)', (name, rule) => {
    expect(gate(name, tool('return 1;'))[0].rule).toBe(rule);
  });

  it('measures the size in UTF-8 bytes, not characters', () => {
    const overInBytes = tool(`return '${'é'.repeat(51_200)}';`);
    expect(overInBytes.length).toBeLessThan(102_400);
    expect(gate('t', overInBytes).map((v) => v.rule)).toEqual(['size']);
  });

  it('refuses code that does not parse, or has no default export', () => {
    expect(gate('t', 'export default {').map((v) => v.rule)).toEqual(['syntax']);
    expect(gate('t', 'export const x = 1;').map((v) => v.rule)).toEqual(['contract']);
    expect(gate('t', 'const x = {}; export { x as default };')).toEqual([]);
  });
});
