import fc from 'fast-check';
import { initSqlParser } from '@app/templates';
import { admitReport, ReportSet } from '@app/registry';
import type { StoredReport, TenantRecord } from '@app/registry';

const tenant: TenantRecord = {
  id: 'acme',
  name: 'Acme',
  createdAt: '2026-01-01',
  catalogVersion: 7,
  dataSchema: 'tenant_acme',
  allowedTables: ['orders'],
};

const good = (id: string): StoredReport => ({
  status: 'active',
  updatedAt: '2026-01-01',
  metadata: {
    tenantId: 'acme',
    id,
    name: id,
    description: 'a sound report',
    sqlTemplate: 'SELECT count(*) AS n FROM orders WHERE (:region IS NULL OR region = :region)',
    category: 'sales',
    version: 1,
    filters: [
      {
        name: 'region',
        type: 'string',
        description: '',
        required: false,
        enumValues: null,
        defaultValue: null,
      },
    ],
    fields: [{ name: 'n', type: 'integer', description: '' }],
  },
});

const sqlish = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "SELECT 'abc FROM orders",
    'SELECT $x$abc FROM orders',
    'SELECT 1 /* FROM orders',
    'SELECT * FROM pg_roles',
    'SELECT :x FROM orders',
    'DELETE FROM orders',
    'SELECT 1/0 FROM orders',
  ),
  fc.string().map((s) => `SELECT ${s} FROM orders`),
);

/** Anything a row of gateway.reports / report_filters / report_fields can hold. */
const randomRow: fc.Arbitrary<StoredReport> = fc.record({
  status: fc.constantFrom('active' as const, 'disabled' as const),
  updatedAt: fc.string(),
  metadata: fc.record({
    tenantId: fc.constant('acme'),
    id: fc.stringMatching(/^[a-z][a-z0-9_]{0,70}$/),
    name: fc.string(),
    description: fc.string(),
    sqlTemplate: sqlish,
    category: fc.string(),
    version: fc.integer(),
    filters: fc.array(
      fc.record({
        name: fc.string(),
        type: fc.oneof(
          fc.string(),
          fc.constantFrom('string', 'enum', 'integer', 'date_range', 'number_range', 'string_list'),
        ) as fc.Arbitrary<never>,
        description: fc.string(),
        required: fc.boolean(),
        enumValues: fc.option(fc.array(fc.string()), { nil: null }),
        defaultValue: fc.jsonValue(),
      }),
      { maxLength: 4 },
    ),
    fields: fc.array(
      fc.record({
        name: fc.string(),
        type: fc.string() as fc.Arbitrary<never>,
        description: fc.string(),
      }),
      { maxLength: 3 },
    ),
  }),
});

beforeAll(() => initSqlParser());

/**
 * Property: whatever rows a tenant's reports hold, admission is per report. The sound
 * reports stay served, with their tools; a bad row is a "not served" verdict with a reason.
 */
describe('faults (property): random report rows never take the other reports down', () => {
  it('admission never throws and the sound reports keep their tools', () => {
    fc.assert(
      fc.property(fc.array(randomRow, { maxLength: 5 }), (rows) => {
        const sound = [good('sound_one'), good('sound_two')];
        const random = rows.filter((r) => !r.metadata.id.startsWith('sound_'));
        const set = ReportSet.of([...random, ...sound], 'scope', (s) => admitReport(s, tenant));
        for (const s of sound) {
          expect(set.verdict(s.metadata.id)?.status).toEqual({ served: true });
          expect(set.tool(`query_report_${s.metadata.id}`)?.definition.name).toBe(
            `query_report_${s.metadata.id}`,
          );
        }
        for (const r of random) {
          const verdict = set.verdict(r.metadata.id);
          expect(verdict).toBeDefined();
          if (!verdict!.status.served) expect(verdict!.status.reason).toEqual(expect.any(String));
          // a served tool can be asked for its validator and SQL without throwing
          if (verdict!.tool) {
            expect(() => verdict!.tool!.arguments.check({})).not.toThrow();
            expect(() => verdict!.tool!.pagedQuery).not.toThrow();
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
