import type { ColumnType, Generated } from 'kysely';
import type { BigIntNumber, Timestamp } from './columns';

/*
 * What the gateway records as it runs: meta_tool's proposals and tools, the audit log, usage,
 * the SQL guard's verdicts and the database's identity.
 */

export type ProposalStatus = 'pending' | 'installing' | 'rejected' | 'failed' | 'installed';

export interface ToolProposalsTable {
  id: string;
  tenant_id: string;
  name: string;
  description: Generated<string>;
  source: string;
  sha256: string;
  test_args: ColumnType<unknown, string | null, string | null>;
  proposed_by: string;
  status: Generated<ProposalStatus>;
  reviewed_by: string | null;
  /** why it was rejected or failed, or what the smoke call returned */
  outcome: string | null;
  created_at: Timestamp;
  decided_at: string | null;
  /** the trace id of the request that made the proposal */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** the proposer's roles and claims when proposing: the smoke call runs as them */
  proposer_roles: ColumnType<string[], string | undefined, string>;
  proposer_claims: ColumnType<Record<string, string>, string | undefined, string>;
}

export interface GeneratedToolStatsTable {
  tenant_id: string;
  name: string;
  calls: ColumnType<BigIntNumber, number | undefined, number>;
  errors: ColumnType<BigIntNumber, number | undefined, number>;
  last_error: string | null;
  last_error_at: string | null;
}

export interface MetaToolSettingsTable {
  tenant_id: string;
  enabled: boolean;
  updated_by: string;
  updated_at: Generated<Timestamp>;
}

export interface GeneratedToolsTable {
  tenant_id: string;
  name: string;
  description: string;
  input_schema: ColumnType<unknown, string, string>;
  source: string;
  sha256: string;
  proposal_id: string;
  approved_by: string;
  smoke_tested: boolean;
  smoke_preview: string | null;
  status: Generated<'active' | 'disabled'>;
  installed_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<BigIntNumber>;
  tenant_id: string;
  actor: string;
  action: string;
  subject: string;
  detail: ColumnType<unknown, string | undefined, string>;
  at: Timestamp;
}

/** A tool called after a select or search_tools, and the question that led to it (#31). */
export interface ToolUsageTable {
  id: Generated<BigIntNumber>;
  tenant_id: string;
  user_id: string;
  query: string;
  tool_name: string;
  source: 'select' | 'search_tools';
  used_at: Timestamp;
}

/** One row: the id written when the metadata database was created (L2 key namespace). */
export interface DatabaseIdentityTable {
  id: Generated<string>;
  one_row: Generated<boolean>;
  created_at: Timestamp;
}

/** The SQL guard's verdict on a template, by hash (a cache: see its migration). */
export interface AdmissionVerdictsTable {
  tenant_id: string;
  template_hash: string;
  /** the guard's problems; [] = the template passes */
  problems: ColumnType<unknown, string, string>;
  judged_at: Generated<Timestamp>;
}

/** One hour of one tool's calls by how the caller found it (issue #33). */
export interface ReportUsageTable {
  tenant_id: string;
  tool: string;
  hour: Timestamp;
  found_via: 'listed' | 'selected' | 'searched';
  calls: number;
  errors: number;
  empty: number;
  /** calls answered from the result cache (migration 2026-12-06T14-00) */
  cached: Generated<number>;
  latency_ms_sum: number;
  latency_buckets: number[];
}
