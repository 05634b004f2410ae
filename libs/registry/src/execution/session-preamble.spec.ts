import { sessionSetup, sourceSessionSetup } from './session-setup';

const limits = { statementTimeoutMs: 5000, workMemKb: 8192, tempFileLimitKb: 262144 };

describe('sessionSetup', () => {
  it('opens a read-only transaction pinned to the tenant, limits first, role last', () => {
    expect(sessionSetup('acme', 'tenant_acme', limits)).toEqual([
      'BEGIN TRANSACTION READ ONLY',
      'SET LOCAL search_path TO "tenant_acme", pg_catalog, pg_temp',
      'SET LOCAL statement_timeout = 5000',
      "SET LOCAL work_mem = '8192kB'",
      "SET LOCAL temp_file_limit = '262144kB'",
      'SET LOCAL ROLE "gw_reader_acme"',
    ]);
  });

  it('leaves temp_file_limit to the server when it is 0', () => {
    const setup = sessionSetup('acme', 'tenant_acme', { ...limits, tempFileLimitKb: 0 });
    expect(setup.some((s) => s.includes('temp_file_limit'))).toBe(false);
  });

  it.each([
    ['acme"; DROP TABLE x; --', 'tenant_acme'],
    ['acme', 'tenant_acme"; RESET ROLE; --'],
    ['Acme', 'tenant_acme'],
  ])('refuses identifiers it did not validate: %p / %p', (tenant, schema) => {
    expect(() => sessionSetup(tenant, schema, limits)).toThrow('refusing to build a session');
  });

  it('refuses limits that are not whole numbers', () => {
    expect(() => sessionSetup('acme', 'tenant_acme', { ...limits, workMemKb: 1.5 })).toThrow(
      'refusing to build a session',
    );
  });
});

describe('sessionSetup with a trace id', () => {
  it('names the session after the trace, so pg_stat_activity leads back to the request', () => {
    expect(sessionSetup('acme', 'tenant_acme', limits, '0af7651916cd43dd8448eb211c80319c')).toEqual(
      [
        'BEGIN TRANSACTION READ ONLY',
        'SET LOCAL search_path TO "tenant_acme", pg_catalog, pg_temp',
        'SET LOCAL statement_timeout = 5000',
        "SET LOCAL work_mem = '8192kB'",
        "SET LOCAL temp_file_limit = '262144kB'",
        'SET LOCAL ROLE "gw_reader_acme"',
        "SET LOCAL application_name = 'gateway trace=0af7651916cd43dd8448eb211c80319c'",
      ],
    );
  });

  it('refuses a trace id that is not 32 lowercase hex digits', () => {
    expect(() => sessionSetup('acme', 'tenant_acme', limits, "x'; RESET ROLE; --")).toThrow(
      'refusing to build a session',
    );
  });
});

describe('sourceSessionSetup (a tenant data source, issue #30)', () => {
  it('is read-only with the timeout and search_path, under the login itself, without temp_file_limit', () => {
    expect(sourceSessionSetup('public', limits)).toEqual([
      'BEGIN TRANSACTION READ ONLY',
      'SET LOCAL search_path TO "public", pg_catalog, pg_temp',
      'SET LOCAL statement_timeout = 5000',
      "SET LOCAL work_mem = '8192kB'",
    ]);
  });

  it('refuses a schema it did not validate', () => {
    expect(() => sourceSessionSetup('public"; SET ROLE x; --', limits)).toThrow(
      'refusing to build a session',
    );
  });
});
