import { ReportExecutor } from '@app/registry';
import { SqlGuard } from '@app/templates';
import { Injectable } from '@nestjs/common';

const guard = new SqlGuard();
/** a generated tool gets at most this many rows per query */
export const MAX_QUERY_ROWS = 1000;

export interface TenantScope {
  id: string;
  dataSchema: string | null;
  allowedTables: string[];
}

/**
 * `ctx.query(sql, params)` of a generated tool: every statement goes through the SQL guard
 * with the tenant's whitelist (positional `$n` parameters) and then the core's read-only
 * executor (READ ONLY, timeout, the tenant's SELECT-only role). Refusals are sentences the
 * tool (and the model behind it) can act on.
 */
@Injectable()
export class GeneratedDataAccess {
  constructor(private readonly executor: ReportExecutor) {}

  async query(tenant: TenantScope, sql: string, params: unknown[]): Promise<unknown[]> {
    if (!tenant.dataSchema) throw new Error('this tenant has no datasource');
    const verdict = guard.check({
      sql,
      whitelist: { defaultSchema: tenant.dataSchema, tables: tenant.allowedTables },
      declaredParams: [],
      parameterStyle: 'positional',
      requireAllDeclaredUsed: false,
    });
    if (!verdict.ok) {
      throw new Error(
        `the SQL guard refused the query: ${verdict.errors.map((e) => `${e.rule}: ${e.message}`).join('; ')}`,
      );
    }
    const wrapped = `SELECT * FROM (\n${sql.replace(/;\s*$/, '')}\n) AS q LIMIT ${MAX_QUERY_ROWS}`;
    try {
      const result = await this.executor.runReadOnly(tenant, wrapped, params);
      return result.rows;
    } catch (err) {
      throw new Error(`the query failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
