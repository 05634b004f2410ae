import type { ReportRow } from '@app/db';
import { toStoredReport } from './catalog-records';
import type { ChildRow } from './catalog-records';
import { validSnapshot } from '../cache/snapshot-schema';
import { snapshotOf } from '../snapshot.spec-helper';

function row(partial: Partial<ReportRow> = {}): ReportRow {
  return {
    tenant_id: 'acme',
    id: 'revenue',
    name: 'Revenue',
    description: 'revenue by month',
    sql_template: 'SELECT 1 AS n',
    category: 'sales',
    version: 3,
    status: 'active',
    synonyms: null,
    example_questions: null,
    statement_timeout_ms: null,
    max_rows: null,
    max_result_bytes: null,
    updated_at: '2026-12-01T00:00:00Z',
    ...partial,
  } as ReportRow;
}

describe('toStoredReport', () => {
  it('maps a row, its filters and fields to the metadata the registry uses', () => {
    const r = row();
    const filters: ChildRow[] = [
      {
        name: 'region',
        type: 'enum',
        description: 'r',
        required: true,
        enum_values: ['eu'],
        default_value: 'eu',
      },
    ];
    const fields: ChildRow[] = [{ name: 'n', type: 'integer', description: 'count' }];
    const stored = toStoredReport(r, filters, fields);
    expect(stored.status).toBe(r.status);
    expect(stored.updatedAt).toBe(r.updated_at);
    expect(stored.metadata).toEqual({
      tenantId: r.tenant_id,
      id: r.id,
      name: r.name,
      description: r.description,
      sqlTemplate: r.sql_template,
      category: r.category,
      version: r.version,
      filters: [
        {
          name: 'region',
          type: 'enum',
          description: 'r',
          required: true,
          enumValues: ['eu'],
          defaultValue: 'eu',
        },
      ],
      fields: [{ name: 'n', type: 'integer', description: 'count' }],
    });
  });

  it('defaults a filter that is not required, without values or default', () => {
    const stored = toStoredReport(row(), [{ name: 'f', type: 'text', description: '' }], []);
    expect(stored.metadata.filters[0]).toMatchObject({
      required: false,
      enumValues: null,
      defaultValue: null,
    });
  });

  it('carries synonyms, example questions and limits only when the row has them', () => {
    const bare = toStoredReport(row(), [], []).metadata;
    expect(bare).not.toHaveProperty('synonyms');
    expect(bare).not.toHaveProperty('exampleQuestions');
    expect(bare).not.toHaveProperty('limits');
    const full = toStoredReport(
      row({ synonyms: ['sales'], example_questions: ['how much?'], max_rows: 10 }),
      [],
      [],
    ).metadata;
    expect(full.synonyms).toEqual(['sales']);
    expect(full.exampleQuestions).toEqual(['how much?']);
    expect(full.limits).toEqual({ statementTimeoutMs: null, maxRows: 10, maxResultBytes: null });
  });

  it('carries runAsTask only when the row declares it', () => {
    expect(toStoredReport(row({ run_as_task: false }), [], []).metadata).not.toHaveProperty(
      'runAsTask',
    );
    expect(toStoredReport(row({ run_as_task: true }), [], []).metadata.runAsTask).toBe(true);
  });
});

describe('a stored report in the L2 snapshot', () => {
  it('passes the snapshot check with every optional column set, so L2 never refuses a sound catalog', () => {
    const full = toStoredReport(
      row({
        synonyms: ['turnover'],
        example_questions: ['What was revenue last month?'],
        statement_timeout_ms: 5000,
        max_rows: 100,
        max_result_bytes: 65536,
        datasource: 'warehouse',
        chart: { type: 'bar', x: 'month', y: 'n' },
        run_as_task: true,
      } as Partial<ReportRow>),
      [{ name: 'region', type: 'text', description: 'r', required: false }],
      [{ name: 'n', type: 'integer', description: 'count' }],
    );
    const snapshot = JSON.parse(JSON.stringify({ ...snapshotOf(), reports: [full] })) as unknown;
    expect(validSnapshot(snapshot)).toBe(true);
    expect(Object.keys(full.metadata)).toEqual(
      expect.arrayContaining([
        'synonyms',
        'exampleQuestions',
        'limits',
        'datasource',
        'chart',
        'runAsTask',
      ]),
    );
  });
});
