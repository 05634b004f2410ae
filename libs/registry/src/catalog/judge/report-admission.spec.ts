import { createHash } from 'node:crypto';
import { initSqlParser } from '@app/templates';
import type { GeneratedToolRecord, StoredReport, TenantRecord } from '../model/catalog-records';
import type { Metrics } from '../../metrics';
import { storedReport } from '../fixtures.spec-helper';
import { dataScope, ReportAdmission } from './report-admission';
import { TemplateVerdicts, VerdictPersistence } from './template-verdicts';

const tenant: TenantRecord = {
  id: 'acme',
  name: 'Acme',
  createdAt: '2026-11-30T00:00:00Z',
  catalogVersion: 1,
  dataSchema: 'tenant_acme',
  allowedTables: ['orders'],
};

const stored = (id: string, sqlTemplate: string, version = 1): StoredReport =>
  storedReport(id, 'sales', version, 'active', sqlTemplate);

function generated(name: string, source: string, sha256?: string): GeneratedToolRecord {
  return {
    name,
    description: `tool ${name}`,
    inputSchema: { type: 'object', properties: {} },
    source,
    sha256: sha256 ?? createHash('sha256').update(source).digest('hex'),
    smokeTested: true,
    approvedBy: 'rex',
    status: 'active',
  };
}

/** Metrics that only record what was counted. */
function fakeMetrics(): { metrics: Metrics; counted: string[] } {
  const counted: string[] = [];
  const metrics = {
    describe: () => undefined,
    inc: (name: string, labels: Record<string, string> = {}) =>
      counted.push(`${name}${JSON.stringify(labels)}`),
  } as unknown as Metrics;
  return { metrics, counted };
}

const GOOD = 'SELECT count(*) AS n FROM orders';
const BAD = 'SELECT count(*) AS n FROM payroll';

describe('ReportAdmission', () => {
  // loading the parser (WebAssembly) can take seconds on a loaded machine
  beforeAll(() => initSqlParser(), 30_000);

  it('judges a report version once and reuses the verdict across catalogs', () => {
    const admission = new ReportAdmission(fakeMetrics().metrics);
    const first = admission.admitter(tenant)(stored('a', GOOD));
    const again = admission.admitter(tenant)(stored('a', GOOD));
    expect(first.status).toEqual({ served: true });
    expect(again).toBe(first);
    expect(admission.admitter(tenant)(stored('a', GOOD, 2))).not.toBe(first);
  });

  it('forgets the verdicts on versions a refresh replaced or removed, and keeps the unchanged ones', () => {
    const admission = new ReportAdmission(fakeMetrics().metrics);
    const admit = admission.admitter(tenant);
    const a1 = admit(stored('a', GOOD));
    const b1 = admit(stored('b', GOOD));
    const c1 = admit(stored('c', GOOD));
    // a changed to version 2, b removed, c listed as changed but the same row
    admission.retire(
      tenant,
      [stored('a', GOOD), stored('b', GOOD), stored('c', GOOD)],
      new Map([
        ['a', stored('a', GOOD, 2)],
        ['c', stored('c', GOOD)],
      ]),
    );
    expect(admit(stored('a', GOOD))).not.toBe(a1);
    expect(admit(stored('b', GOOD))).not.toBe(b1);
    expect(admit(stored('c', GOOD))).toBe(c1);
  });

  it('judges again when the data scope changes', () => {
    const admission = new ReportAdmission(fakeMetrics().metrics);
    const first = admission.admitter(tenant)(stored('a', GOOD));
    const narrowed = { ...tenant, allowedTables: ['customers'] };
    expect(dataScope(narrowed)).not.toBe(dataScope(tenant));
    const verdict = admission.admitter(narrowed)(stored('a', GOOD));
    expect(verdict).not.toBe(first);
    expect(verdict.status.served).toBe(false);
  });

  it('counts a guard refusal once per report version', () => {
    const { metrics, counted } = fakeMetrics();
    const admission = new ReportAdmission(metrics);
    const verdict = admission.admitter(tenant)(stored('b', BAD));
    expect(verdict.status).toMatchObject({
      served: false,
      reason: 'the SQL template was rejected',
    });
    admission.admitter(tenant)(stored('b', BAD));
    const refusals = counted.filter((c) => c.startsWith('gateway_sql_guard_refusals_total'));
    expect(refusals.length).toBeGreaterThan(0);
    admission.admitter(tenant)(stored('b', BAD));
    expect(counted.filter((c) => c.startsWith('gateway_sql_guard_refusals_total'))).toEqual(
      refusals,
    );
  });

  it('keeps its memory bounded: a forgotten verdict is judged (and counted) again', () => {
    const { metrics, counted } = fakeMetrics();
    const admission = new ReportAdmission(metrics, {
      reports: 1,
      generated: 1,
      logged: 1,
      templates: 1,
    });
    const admit = admission.admitter(tenant);
    const first = admit(stored('b', BAD));
    // another template: both the report's verdict and the template's are pushed out
    admit(stored('c', `${BAD} WHERE 1 = 1`));
    const before = counted.length;
    const again = admit(stored('b', BAD));
    expect(again).not.toBe(first);
    expect(counted.length).toBeGreaterThan(before);
  });

  it('admits a generated tool whose source matches its sha256, and skips a tampered one', () => {
    const admission = new ReportAdmission(fakeMetrics().metrics);
    const good = generated('g_ok', 'export default () => 1');
    const tampered = generated('g_bad', 'export default () => 2', 'f'.repeat(64));
    const tools = admission.admitGenerated('acme', [good, tampered]);
    expect(tools.map((t) => t.definition.name)).toEqual(['g_ok']);
    expect(admission.admitGenerated('acme', [good])[0]).toBe(tools[0]);
  });

  it('skips a disabled generated tool', () => {
    const admission = new ReportAdmission(fakeMetrics().metrics);
    const disabled = {
      ...generated('g_off', 'export default () => 1'),
      status: 'disabled' as const,
    };
    expect(admission.admitGenerated('acme', [disabled])).toEqual([]);
  });

  it('keeps no parse tree, no guard reading and no bound SQL of an admitted report', () => {
    const admission = new ReportAdmission(fakeMetrics().metrics);
    const sql = `${GOOD} WHERE :tenant_id IS NOT NULL`;
    const verdict = admission.admitter(tenant)(stored('a', sql));
    expect(verdict.status).toEqual({ served: true });
    const held = reachable(verdict);
    // libpg-query's tree (stmts, SelectStmt, targetList...) and the scanner's tokens
    for (const key of ['stmts', 'SelectStmt', 'targetList', 'fromClause', 'tokens'])
      expect(held.keys).not.toContain(key);
    expect(held.strings.some((s) => s.includes('$1'))).toBe(false);
    // ...which a call renders when it needs it
    expect(verdict.tool?.bound.text).toContain('$1');
  });

  it('shares one empty problem list between the templates the guard accepts', () => {
    const verdicts = new TemplateVerdicts(fakeMetrics().metrics, new VerdictPersistence(null), 10);
    const [a, b, bad] = [GOOD, `${GOOD} WHERE 1 = 1`, BAD].map((sql) =>
      verdicts.verdict('acme', stored('x', sql).metadata, tenant),
    );
    expect(a).toEqual([]);
    expect(b).toBe(a);
    expect(bad?.length).toBeGreaterThan(0);
  });
});

/** Every property name and string reachable from a value through own properties. */
function reachable(root: unknown): { keys: string[]; strings: string[] } {
  const keys = new Set<string>();
  const strings: string[] = [];
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'string') keys.add(key);
      visit((value as Record<string | symbol, unknown>)[key]);
    }
  };
  visit(root);
  return { keys: [...keys], strings };
}
