import { sql } from 'kysely';
import { createTestDatabase } from '../../test/support/test-database';
import type { TestDatabase } from '../../test/support/test-database';
import { writeReportRows } from './report-rows.repository';
import type { ReportRows } from './report-rows.repository';

/** A report's version counts its changes, not the filter and field rows one change writes (#39). */
describe('report versions (real Postgres)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const rows = (name: string): ReportRows => ({
    report: {
      id: 'versioned',
      name,
      description: 'd',
      sql_template: 'SELECT o.id FROM orders o WHERE o.id = :a AND o.region = :b',
      category: 'sales',
      status: 'active',
    },
    filters: ['a', 'b', 'c'].map((f) => ({
      name: f,
      type: 'string',
      description: '',
      required: false,
      enum_values: null,
      default_value: null,
    })),
    fields: ['id', 'region'].map((f) => ({ name: f, type: 'string', description: '' })),
  });
  const version = async () =>
    (
      await sql<{ version: number }>`SELECT version FROM gateway.reports
        WHERE tenant_id = 'acme' AND id = 'versioned'`.execute(database.handle.db)
    ).rows[0].version;
  const write = (r: ReportRows) =>
    database.handle.db.transaction().execute((trx) => writeReportRows(trx, 'acme', r));

  it('one write is one version, however many filter and field rows it writes', async () => {
    await write(rows('first'));
    expect(await version()).toBe(1);
    await write(rows('second'));
    expect(await version()).toBe(2);
  });

  it('a filter changed on its own (its own transaction) still bumps its report, once', async () => {
    const before = await version();
    await sql`UPDATE gateway.report_filters SET description = 'changed'
      WHERE tenant_id = 'acme' AND report_id = 'versioned'`.execute(database.handle.db);
    expect(await version()).toBe(before + 1);
  });

  it('the demo reports, seeded in one transaction, are at version 1', async () => {
    const { rows: versions } = await sql<{ version: number }>`SELECT DISTINCT version
      FROM gateway.reports WHERE tenant_id IN ('acme', 'globex') AND id <> 'versioned'`.execute(
      database.handle.db,
    );
    expect(versions.map((v) => v.version)).toEqual([1]);
  });
});
