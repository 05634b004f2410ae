import { sessionSetup, sourceSessionSetup } from './session-setup';

const limits = { statementTimeoutMs: 5000, workMemKb: 8192, tempFileLimitKb: 262144 };

describe('sessionSetup', () => {
  it('makes the transaction read-only and pins it to the tenant in one statement, read-only first, role last', () => {
    expect(sessionSetup('acme', 'tenant_acme', limits)).toEqual([
      "SELECT set_config('transaction_read_only', 'on', true), " +
        "set_config('search_path', '\"tenant_acme\", pg_catalog, pg_temp', true), " +
        "set_config('statement_timeout', '5000', true), set_config('work_mem', '8192kB', true), " +
        "set_config('temp_file_limit', '262144kB', true), set_config('role', 'gw_reader_acme', true)",
    ]);
  });

  it('leaves temp_file_limit to the server when it is 0', () => {
    const setup = sessionSetup('acme', 'tenant_acme', { ...limits, tempFileLimitKb: 0 });
    expect(setup.some((s) => s.includes('temp_file_limit'))).toBe(false);
  });

  it('asks for custom plans when a named statement runs (ADR 0005)', () => {
    const [settings] = sessionSetup('acme', 'tenant_acme', limits, { customPlans: true });
    expect(settings).toContain("set_config('plan_cache_mode', 'force_custom_plan', true)");
    expect(settings.indexOf('plan_cache_mode')).toBeLessThan(settings.indexOf("'role'"));
  });

  it.each([
    ['acme"; DROP TABLE x; --', 'tenant_acme'],
    ['acme', 'tenant_acme"; RESET ROLE; --'],
    ["acme', true); RESET ROLE; --", 'tenant_acme'],
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
    const [settings] = sessionSetup('acme', 'tenant_acme', limits, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
    });
    expect(settings).toContain(
      "set_config('application_name', 'gateway trace=0af7651916cd43dd8448eb211c80319c', true)",
    );
  });

  it('refuses a trace id that is not 32 lowercase hex digits', () => {
    expect(() =>
      sessionSetup('acme', 'tenant_acme', limits, { traceId: "x'; RESET ROLE; --" }),
    ).toThrow('refusing to build a session');
  });
});

describe('sourceSessionSetup (a tenant data source, issue #30)', () => {
  it('is read-only with the timeout and search_path, under the login itself, without temp_file_limit', () => {
    expect(sourceSessionSetup('public', limits)).toEqual([
      "SELECT set_config('transaction_read_only', 'on', true), " +
        "set_config('search_path', '\"public\", pg_catalog, pg_temp', true), " +
        "set_config('statement_timeout', '5000', true), set_config('work_mem', '8192kB', true)",
    ]);
  });

  it('refuses a schema it did not validate', () => {
    expect(() => sourceSessionSetup('public"; SET ROLE x; --', limits)).toThrow(
      'refusing to build a session',
    );
  });
});
