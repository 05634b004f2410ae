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

describe('sessionPreamble with a trace id', () => {
  it('names the session after the trace, so pg_stat_activity leads back to the request', () => {
    expect(sessionPreamble('acme', 'tenant_acme', 5000, '0af7651916cd43dd8448eb211c80319c')).toBe(
      'BEGIN TRANSACTION READ ONLY; SET LOCAL search_path TO "tenant_acme", pg_catalog, pg_temp; SET LOCAL statement_timeout = 5000; SET LOCAL ROLE "gw_reader_acme"; SET LOCAL application_name = \'gateway trace=0af7651916cd43dd8448eb211c80319c\'',
    );
  });

  it('refuses a trace id that is not 32 lowercase hex digits', () => {
    expect(() => sessionPreamble('acme', 'tenant_acme', 5000, "x'; RESET ROLE; --")).toThrow(
      'refusing to build a session',
    );
  });
});
