import type { FieldType, FilterType } from '@app/templates';
import type { SelectType } from 'kysely';
import { sql } from 'kysely';
import { createTestDatabase } from '../test/support/test-database';
import type { TestDatabase } from '../test/support/test-database';
import type { DB, FieldTypeName, FilterTypeName } from './database';

/** 'YES' when the column's type admits null, 'NO' when not, 'ANY' for untyped (json) columns. */
type Nullability<R> = unknown extends R ? 'ANY' : null extends R ? 'YES' : 'NO';

/** Every table and column of `DB`, no more, no fewer; each value is forced by the column's type. */
type Shape = {
  [T in keyof DB]: { [C in keyof DB[T]]: Nullability<SelectType<DB[T][C]>> };
};

const SHAPE: Shape = {
  admission_verdicts: { tenant_id: 'NO', template_hash: 'NO', problems: 'ANY', judged_at: 'NO' },
  database_identity: { id: 'NO', one_row: 'NO', created_at: 'NO' },
  tenants: { id: 'NO', name: 'NO', catalog_version: 'NO', created_at: 'NO', claimed_by: 'YES' },
  datasources: { tenant_id: 'NO', data_schema: 'NO', allowed_tables: 'NO' },
  reports: {
    tenant_id: 'NO',
    id: 'NO',
    name: 'NO',
    description: 'NO',
    sql_template: 'NO',
    category: 'NO',
    status: 'NO',
    version: 'NO',
    updated_at: 'NO',
    changed_in: 'NO',
    synonyms: 'YES',
    example_questions: 'YES',
    statement_timeout_ms: 'YES',
    max_rows: 'YES',
    max_result_bytes: 'YES',
    datasource: 'YES',
    chart: 'ANY',
    run_as_task: 'NO',
    cache_ttl_seconds: 'YES',
  },
  tenant_datasources: {
    tenant_id: 'NO',
    name: 'NO',
    connection_secret: 'NO',
    connection_shown: 'NO',
    data_schema: 'NO',
    allowed_tables: 'NO',
    pool_max: 'NO',
    statement_timeout_ms: 'YES',
    pass_identity: 'NO',
    engine: 'NO',
    created_at: 'NO',
    updated_at: 'NO',
  },
  report_removals: { tenant_id: 'NO', report_id: 'NO', removed_in: 'NO' },
  report_usage: {
    tenant_id: 'NO',
    tool: 'NO',
    hour: 'NO',
    found_via: 'NO',
    calls: 'NO',
    errors: 'NO',
    empty: 'NO',
    cached: 'NO',
    latency_ms_sum: 'NO',
    latency_buckets: 'NO',
  },
  report_filters: {
    tenant_id: 'NO',
    report_id: 'NO',
    name: 'NO',
    type: 'NO',
    description: 'NO',
    required: 'NO',
    enum_values: 'YES',
    default_value: 'ANY',
    position: 'NO',
  },
  report_fields: {
    tenant_id: 'NO',
    report_id: 'NO',
    name: 'NO',
    type: 'NO',
    description: 'NO',
    position: 'NO',
  },
  business_contexts: { tenant_id: 'NO', name: 'NO', description: 'NO' },
  context_members: { id: 'NO', tenant_id: 'NO', context: 'NO', category: 'YES', report_id: 'YES' },
  roles: { tenant_id: 'NO', name: 'NO', description: 'NO', is_admin: 'NO' },
  role_grants: { id: 'NO', tenant_id: 'NO', role: 'NO', category: 'YES', report_id: 'YES' },
  user_roles: { tenant_id: 'NO', user_id: 'NO', role: 'NO' },
  user_grants: {
    id: 'NO',
    tenant_id: 'NO',
    user_id: 'NO',
    category: 'YES',
    report_id: 'YES',
    effect: 'NO',
  },
  tool_proposals: {
    id: 'NO',
    tenant_id: 'NO',
    name: 'NO',
    description: 'NO',
    source: 'NO',
    sha256: 'NO',
    test_args: 'ANY',
    proposed_by: 'NO',
    status: 'NO',
    reviewed_by: 'YES',
    outcome: 'YES',
    created_at: 'NO',
    decided_at: 'YES',
    trace_id: 'YES',
    proposer_roles: 'NO',
    proposer_claims: 'NO',
  },
  generated_tools: {
    tenant_id: 'NO',
    name: 'NO',
    description: 'NO',
    input_schema: 'ANY',
    source: 'NO',
    sha256: 'NO',
    proposal_id: 'NO',
    approved_by: 'NO',
    smoke_tested: 'NO',
    smoke_preview: 'YES',
    status: 'NO',
    installed_at: 'NO',
  },
  generated_tool_stats: {
    tenant_id: 'NO',
    name: 'NO',
    calls: 'NO',
    errors: 'NO',
    last_error: 'YES',
    last_error_at: 'YES',
  },
  meta_tool_settings: { tenant_id: 'NO', enabled: 'NO', updated_by: 'NO', updated_at: 'NO' },
  audit_log: {
    id: 'NO',
    tenant_id: 'NO',
    actor: 'NO',
    action: 'NO',
    subject: 'NO',
    detail: 'ANY',
    at: 'NO',
  },
  tool_usage: {
    id: 'NO',
    tenant_id: 'NO',
    user_id: 'NO',
    query: 'NO',
    tool_name: 'NO',
    source: 'NO',
    used_at: 'NO',
  },
};

/** The database's filter and field type names are the templates library's (compile time). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const TYPE_NAMES_AGREE: [Same<FilterType, FilterTypeName>, Same<FieldType, FieldTypeName>] = [
  true,
  true,
];

describe('the DB type against the migrated schema', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  async function columns(): Promise<Array<{ table: string; column: string; nullable: string }>> {
    const { rows } = await sql<{ table: string; column: string; nullable: string }>`
      SELECT c.table_name AS table, c.column_name AS column, c.is_nullable AS nullable
        FROM information_schema.columns c
        JOIN information_schema.tables t
          ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE c.table_schema = 'gateway' AND t.table_type = 'BASE TABLE'`.execute(db.handle.db);
    return rows;
  }

  it('declares exactly the tables and columns of the gateway schema', async () => {
    const actual = (await columns()).map((c) => `${c.table}.${c.column}`).sort();
    const declared = Object.entries(SHAPE)
      .flatMap(([table, cols]) => Object.keys(cols).map((column) => `${table}.${column}`))
      .sort();
    expect(declared).toEqual(actual);
  });

  it('types a column as nullable exactly when the schema lets it be NULL', async () => {
    const shape = SHAPE as unknown as Record<string, Record<string, string>>;
    const wrong = (await columns())
      .filter((c) => shape[c.table]?.[c.column] !== undefined)
      .filter((c) => shape[c.table][c.column] !== 'ANY')
      .filter((c) => shape[c.table][c.column] !== c.nullable)
      .map((c) => `${c.table}.${c.column}: schema ${c.nullable}, type ${shape[c.table][c.column]}`);
    expect(wrong).toEqual([]);
  });

  it('agrees with the templates library on filter and field types', () => {
    expect(TYPE_NAMES_AGREE).toEqual([true, true]);
  });
});
