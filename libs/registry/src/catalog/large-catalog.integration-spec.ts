import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { initSqlParser } from '@app/templates';
import type { TemplateProblem } from '@app/templates';
import { Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import type { Principal } from '../access/principal';
import { BuiltinTools } from '../listing/builtin-tools';
import { CatalogService } from '../listing/catalog.service';
import { Metrics } from '../metrics';
import { DEFAULT_REGISTRY_OPTIONS } from '../tokens';
import { AdmissionVerdictRepository } from './judge/admission-verdict.repository';
import type { VerdictStore } from './judge/template-verdicts';
import { CatalogLoader } from './load/catalog-loader';
import { CatalogStore } from './catalog-store';
import { CatalogRepository } from './load/catalog.repository';
import { CatalogChangeFeed } from './load/change-feed';
import { ReportAdmission } from './judge/report-admission';
import { SharedCache } from './cache/shared-cache';

const SIZE = 2_000;
// judging 2,000 templates takes a few seconds alone, much longer on a loaded CI machine
jest.setTimeout(180_000);
const TENANT = 'big';
const five: Principal = { tenantId: TENANT, userId: 'fay', roles: ['five'], claims: {} };
const acmeAdmin: Principal = { tenantId: 'acme', userId: 'root', roles: ['admin'], claims: {} };
const id = (i: number) => `r${String(i).padStart(5, '0')}`;
/** report 3 (one of the five the user sees) reads a table outside the whitelist */
const BAD = 3;

/** Verdict reads of more than a few hashes (background batches) wait until released. */
class GatedStore implements VerdictStore {
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  constructor(private readonly inner: VerdictStore) {}
  open(): void {
    this.release();
  }
  async read(tenantId: string, hashes: readonly string[]): Promise<Map<string, TemplateProblem[]>> {
    if (hashes.length > 10) await this.gate;
    return this.inner.read(tenantId, hashes);
  }
  write(tenantId: string, verdicts: ReadonlyArray<{ hash: string; problems: TemplateProblem[] }>) {
    return this.inner.write(tenantId, verdicts);
  }
}

/** One gateway instance's registry, wired by hand so its metrics and admission can be read. */
function instance(db: TestDatabase, store: VerdictStore) {
  const metrics = new Metrics();
  const shared = new SharedCache(metrics, null);
  const admission = new ReportAdmission(metrics, null, store);
  const settings = { ...DEFAULT_REGISTRY_OPTIONS, staleAfterMs: 0 };
  const loader = new CatalogLoader(
    new CatalogRepository(db.handle),
    shared,
    admission,
    metrics,
    settings,
  );
  const catalogs = new CatalogService(
    new CatalogStore(loader, new CatalogChangeFeed(db.handle, metrics, settings), metrics),
    new BuiltinTools(),
    shared,
    metrics,
    settings,
  );
  const judged = () => metrics.value('gateway_sql_guard_runs_total', { source: 'judged' });
  const persisted = () => metrics.value('gateway_sql_guard_runs_total', { source: 'persisted' });
  const pending = () => metrics.value('gateway_catalog_admission_pending');
  return { catalogs, admission, judged, persisted, pending };
}

describe(`a ${SIZE.toLocaleString('en-US')}-report tenant with distinct templates, on real Postgres`, () => {
  let db: TestDatabase;

  beforeAll(async () => {
    await initSqlParser();
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    db = await createTestDatabase();
    const q = db.handle.db;
    await sql`INSERT INTO gateway.tenants (id, name) VALUES (${TENANT}, 'Big')`.execute(q);
    await sql`INSERT INTO gateway.datasources (tenant_id, data_schema, allowed_tables)
              VALUES (${TENANT}, 'tenant_acme', '{orders}')`.execute(q);
    await sql`INSERT INTO gateway.roles (tenant_id, name, description, is_admin)
              VALUES (${TENANT}, 'five', 'sees 5', false), (${TENANT}, 'admin', 'all', true)`.execute(
      q,
    );
    await sql`INSERT INTO gateway.role_grants (tenant_id, role, category)
              VALUES (${TENANT}, 'five', 'vis5')`.execute(q);
    // plain SQL, as an operator would: every template distinct (its number as a literal)
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
      SELECT ${TENANT}, 'r' || lpad(i::text, 5, '0'), 'Report ' || i, 'Synthetic report ' || i,
             CASE WHEN i = ${BAD} THEN 'SELECT count(*) AS n FROM pg_roles'
                  ELSE 'SELECT count(*) AS n FROM orders WHERE ' || i || ' > 0' END,
             CASE WHEN i <= 5 THEN 'vis5' ELSE 'bulk' END
        FROM generate_series(1, ${SIZE}) i`.execute(q);
    await sql`INSERT INTO gateway.report_fields (tenant_id, report_id, name, type, description)
      SELECT ${TENANT}, 'r' || lpad(i::text, 5, '0'), 'n', 'integer', 'count'
        FROM generate_series(1, ${SIZE}) i`.execute(q);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await db.drop();
  });

  it('judges only the caller’s reports for its first list, the rest in the background, persisted for the next instance', async () => {
    const gated = new GatedStore(new AdmissionVerdictRepository(db.handle));
    const a = instance(db, gated);

    // the first list: the five reports the caller can reach, judged while the background
    // judging of the other 1,995 is held at its first batch
    const first = await a.catalogs.visibleSet(five);
    const names = first.tools.map((t) => t.definition.name);
    expect(names).toEqual([1, 2, 4, 5].map((i) => `query_report_${id(i)}`));
    expect(a.judged()).toBe(5);
    expect(a.pending()).toBeGreaterThan(SIZE - 10);
    // the bad template among them is refused alone, with the guard's reason
    expect(first.catalog.reportStatus(id(BAD))).toMatchObject({
      served: false,
      reason: 'the SQL template was rejected',
      problems: [expect.objectContaining({ rule: 'relation' })],
    });

    // while the background judges, the event loop keeps turning: another tenant is served
    // and a setImmediate loop gets many turns before the job is done
    gated.open();
    let turns = 0;
    let otherServedWhilePending = false;
    let judging = true;
    const done = a.admission.idle().then(() => {
      judging = false;
    });
    const ticker = (async () => {
      while (judging) {
        await yieldToLoop();
        turns++;
        if (!otherServedWhilePending && a.pending() > 0 && a.judged() > 5) {
          const other = await a.catalogs.visibleSet(acmeAdmin);
          otherServedWhilePending = other.tools.length > 0 && a.pending() > 0;
        }
      }
    })();
    await done;
    await ticker;
    expect(otherServedWhilePending).toBe(true);
    expect(turns).toBeGreaterThan(10);
    expect(a.pending()).toBe(0);
    // (acme's reports were judged too, for its list)
    expect(a.judged()).toBeGreaterThanOrEqual(SIZE);

    // every verdict is in Postgres, keyed by template hash
    const { rows } = await sql<{ n: number; refused: number }>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE problems <> '[]'::jsonb)::int AS refused
        FROM gateway.admission_verdicts WHERE tenant_id = ${TENANT}`.execute(db.handle.db);
    expect(rows[0]).toEqual({ n: SIZE, refused: 1 });

    // a second, fresh instance judges nothing: its first list reuses the persisted verdicts
    const b = instance(db, new AdmissionVerdictRepository(db.handle));
    const again = await b.catalogs.visibleSet(five);
    expect(again.tools.map((t) => t.definition.name)).toEqual(names);
    expect(again.catalog.reportStatus(id(BAD))).toEqual(first.catalog.reportStatus(id(BAD)));
    await b.admission.idle();
    expect(b.judged()).toBe(0);
    expect(b.persisted()).toBe(SIZE);
  });

  it('lists every served report to an admin, judging in slices', async () => {
    const c = instance(db, new AdmissionVerdictRepository(db.handle));
    const all = await c.catalogs.visibleSet({ ...five, userId: 'ada', roles: ['admin'] });
    const reports = all.tools.filter((t) => t.kind === 'report');
    expect(reports).toHaveLength(SIZE - 1);
    expect(reports.some((t) => t.definition.name === `query_report_${id(BAD)}`)).toBe(false);
    await c.admission.idle();
  });
});
