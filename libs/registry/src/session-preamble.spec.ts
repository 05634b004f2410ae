import { sessionPreamble } from './report-executor';

describe('sessionPreamble', () => {
  it('opens a read-only transaction pinned to the tenant', () => {
    expect(sessionPreamble('acme', 'tenant_acme', 5000)).toBe(
      'BEGIN TRANSACTION READ ONLY; SET LOCAL search_path TO "tenant_acme", pg_catalog, pg_temp; SET LOCAL statement_timeout = 5000; SET LOCAL ROLE "gw_reader_acme"',
    );
  });

  it.each([
    ['acme"; DROP TABLE x; --', 'tenant_acme'],
    ['acme', 'tenant_acme"; RESET ROLE; --'],
    ['Acme', 'tenant_acme'],
  ])('refuses identifiers it did not validate: %p / %p', (tenant, schema) => {
    expect(() => sessionPreamble(tenant, schema, 5000)).toThrow('refusing to build a session');
  });
});
