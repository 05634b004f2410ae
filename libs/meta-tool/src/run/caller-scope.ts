import type { ReportTool, SqlWhitelist } from '@app/templates';
import { SqlGuard } from '@app/templates';
import type { TenantCatalog } from '@app/registry';

const guard = new SqlGuard();

/** What one report's template reads, derived from its parsed SQL by the SQL guard itself. */
export interface ReportReads {
  id: string;
  tables: string[];
  /** identity-bound parameters of the template (`user_id`, `claim_region`, …) */
  identityParams: readonly string[];
}

/** The tables a caller's raw `ctx.query` may read, and why the others are out. */
export interface CallerScope {
  defaultSchema: string;
  /** readable through a visible report and not read by any visible report under an identity-bound parameter */
  allowed: string[];
  /** table -> the visible report that reads it under an identity-bound parameter */
  boundBy: Map<string, ReportReads>;
}

/** Whether `sql` passes the guard over exactly `tables` (named or positional parameters). */
export function passes(sql: string, defaultSchema: string, tables: readonly string[]): boolean {
  return guard.check({
    sql,
    whitelist: { defaultSchema, tables },
    declaredParams: [],
    parameterStyle: 'positional',
    requireAllDeclaredUsed: false,
  }).ok;
}

/**
 * The tables of the tenant's whitelist that `sql` reads. Found with the guard itself: a table
 * is read when removing it from the whitelist makes the guard refuse. So the rule that scopes
 * generated tools and the rule that guards reports can never disagree about what a query reads.
 */
export function tablesRead(sql: string, whitelist: SqlWhitelist): string[] {
  if (!passes(sql, whitelist.defaultSchema, whitelist.tables)) return [];
  return whitelist.tables.filter(
    (t) =>
      !passes(
        sql,
        whitelist.defaultSchema,
        whitelist.tables.filter((other) => other !== t),
      ),
  );
}

const readsByCatalog = new WeakMap<TenantCatalog, Map<string, ReportReads>>();

/** Per catalog version, once: what every served report reads. */
export function reportReads(catalog: TenantCatalog, report: ReportTool): ReportReads {
  let reads = readsByCatalog.get(catalog);
  if (!reads) {
    reads = new Map();
    readsByCatalog.set(catalog, reads);
  }
  const id = report.report.id;
  let entry = reads.get(id);
  if (!entry) {
    entry = {
      id,
      tables: tablesRead(report.bound.text, {
        defaultSchema: catalog.tenant.dataSchema ?? '',
        tables: catalog.tenant.allowedTables,
      }),
      identityParams: report.identityParams,
    };
    reads.set(id, entry);
  }
  return entry;
}

/**
 * The caller's scope for raw SQL: tables read by reports visible to the caller, minus every
 * table any of those reports reads under an identity-bound parameter (those rows are scoped
 * per caller, and raw SQL would not be: `ctx.report` is the way to them).
 */
export function callerScope(catalog: TenantCatalog, visible: readonly ReportTool[]): CallerScope {
  const readable = new Set<string>();
  const boundBy = new Map<string, ReportReads>();
  for (const report of visible) {
    const reads = reportReads(catalog, report);
    for (const table of reads.tables) {
      readable.add(table);
      if (reads.identityParams.length > 0 && !boundBy.has(table)) boundBy.set(table, reads);
    }
  }
  return {
    defaultSchema: catalog.tenant.dataSchema ?? '',
    allowed: [...readable].filter((t) => !boundBy.has(t)).sort(),
    boundBy,
  };
}

/**
 * Why `sql` is refused for this caller, naming each table, or undefined when it passes. The
 * guard's own refusal (not a SELECT, a catalog, a function) is reported as the guard says it.
 */
export function scopeRefusal(
  sql: string,
  scope: CallerScope,
  tenantWhitelist: SqlWhitelist,
): string | undefined {
  const verdict = guard.check({
    sql,
    whitelist: { defaultSchema: scope.defaultSchema, tables: scope.allowed },
    declaredParams: [],
    parameterStyle: 'positional',
    requireAllDeclaredUsed: false,
  });
  if (verdict.ok) return undefined;
  const outside = tablesRead(sql, tenantWhitelist).filter((t) => !scope.allowed.includes(t));
  if (outside.length === 0)
    return `the SQL guard refused the query: ${verdict.errors.map((e) => `${e.rule}: ${e.message}`).join('; ')}`;
  const reasons = outside.map((table) => {
    const report = scope.boundBy.get(table);
    if (report)
      return `table "${table}" is read by report ${report.id} under the identity-bound parameter${report.identityParams.length > 1 ? 's' : ''} ${report.identityParams.map((p) => `:${p}`).join(', ')}, so raw SQL may not read it; use ctx.report('${report.id}', args), which scopes the rows to the caller`;
    return `table "${table}" is not read by any report the caller may use, so a generated tool may not read it for them`;
  });
  return `the query is outside the caller's data: ${reasons.join('; ')} (tables open to raw SQL for this caller: ${scope.allowed.join(', ') || 'none'})`;
}
