import { randomUUID } from 'node:crypto';
import { columnTypeName, readerRole } from '@app/db';
import type { DatabaseHandle, SqlResult } from '@app/db';
import type { ReportTool } from '@app/templates';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal } from './principal';
import type { TenantCatalog } from './tenant-catalog';
import { activeTraceId, withSpan } from './tracing';
import { DATABASE, REGISTRY_OPTIONS } from './tokens';
import type { RegistryOptions } from './tokens';

export interface ToolResultPage {
  columns: Array<{ name: string; type: string }>;
  rows: Record<string, unknown>[];
  page: number;
  page_size: number;
  has_more: boolean;
}

export type ToolErrorCode =
  | 'INVALID_ARGUMENTS'
  | 'TIMEOUT'
  | 'RESULT_TOO_LARGE'
  | 'QUERY_FAILED'
  | 'DATA_UNAVAILABLE'
  | 'REFUSED'
  | 'TOOL_FAILED';

/**
 * What a tool call returns: rows, or an error the model can act on. Never an HTTP error.
 * Reports return a page of rows; other tools return a structured result plus the text the
 * model is shown.
 */
export type ToolCallOutcome =
  | { tool: string; is_error: false; result: ToolResultPage; text?: undefined }
  | { tool: string; is_error: false; result: Record<string, unknown>; text: string }
  | { tool: string; is_error: true; error: { code: ToolErrorCode; message: string } };

const QUERY_CANCELED = '57014';

/**
 * Runs a report as parameterised SQL in a READ ONLY transaction with a statement timeout
 * and the search_path pinned to the tenant's data schema (pg_temp last, so a temp table
 * can never shadow a real one). Paging and the byte cap keep answers model-sized.
 */
@Injectable()
export class ReportExecutor {
  private readonly logger = new Logger(ReportExecutor.name);

  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryOptions,
  ) {}

  async call(
    catalog: TenantCatalog,
    tool: ReportTool,
    input: unknown,
    principal: Principal,
  ): Promise<ToolCallOutcome> {
    const name = tool.definition.name;
    const checked = tool.arguments.check(input);
    if (!checked.ok) return failure(name, 'INVALID_ARGUMENTS', checked.message);
    // per-report limits from the metadata, else the gateway-wide settings
    const limits = tool.report.limits;
    const timeoutMs = limits?.statementTimeoutMs ?? this.options.statementTimeoutMs;
    const maxBytes = limits?.maxResultBytes ?? this.options.maxResultBytes;
    const pageSize = Math.min(checked.pageSize, limits?.maxRows ?? checked.pageSize);
    const paged = tool.pagedQuery;
    const values = [
      ...tool.parameterValues(checked.args, principal),
      ...paged.pageValues(checked.page, pageSize),
    ];
    let result: SqlResult;
    try {
      result = await this.runReadOnly(catalog.tenant, paged.text, values, timeoutMs);
    } catch (err) {
      return this.describeFailure(name, err, timeoutMs);
    }
    const hasMore = result.rows.length > pageSize;
    const rows = hasMore ? result.rows.slice(0, pageSize) : result.rows;
    const bytes = Buffer.byteLength(JSON.stringify(rows));
    if (bytes > maxBytes) {
      return failure(
        name,
        'RESULT_TOO_LARGE',
        `this page is ${bytes} bytes, over the ${maxBytes}-byte limit; ask for a smaller page_size or narrow the filters`,
      );
    }
    return {
      tool: name,
      is_error: false,
      result: {
        columns: result.fields.map((f) => ({ name: f.name, type: columnTypeName(f.dataTypeID) })),
        rows,
        page: checked.page,
        page_size: pageSize,
        has_more: hasMore,
      },
    };
  }

  /**
   * The only way report SQL reaches the database: READ ONLY, statement timeout, search_path
   * pinned (pg_temp last), and the tenant's SELECT-only role, so even SQL that got past the
   * guard cannot write, lock, sleep, change settings or read another tenant's tables.
   */
  async runReadOnly(
    tenant: { id: string; dataSchema: string | null },
    text: string,
    values: readonly unknown[],
    timeoutMs = this.options.statementTimeoutMs,
  ): Promise<SqlResult> {
    if (!tenant.dataSchema) throw new Error(`tenant ${tenant.id} has no datasource`);
    // the request's trace id as application_name: a slow query in pg_stat_activity leads back
    const preamble = sessionPreamble(tenant.id, tenant.dataSchema, timeoutMs, activeTraceId());
    // The caller has the rows as soon as they arrive; the ROLLBACK that ends the read-only
    // transaction runs after that, and only then does the connection go back to the pool.
    const attributes = { 'db.system': 'postgresql', 'gateway.tenant': tenant.id };
    return withSpan('sql', attributes, () => this.runInSession(preamble, text, values, timeoutMs));
  }

  private runInSession(
    preamble: string,
    text: string,
    values: readonly unknown[],
    timeoutMs: number,
  ): Promise<SqlResult> {
    return new Promise<SqlResult>((resolve, reject) => {
      this.database
        .withSession(async (session) => {
          try {
            // One round trip for the whole preamble; the report SQL goes on its own, extended.
            await session.script(preamble);
            // The client gives up shortly after the server should have; a hung connection is dropped.
            resolve(await session.query(text, values, { timeoutMs: timeoutMs + 1000 }));
          } catch (err) {
            reject(err);
          } finally {
            await session.query('ROLLBACK').catch(() => undefined);
          }
        })
        .catch(reject);
    });
  }

  private describeFailure(name: string, err: unknown, timeoutMs: number): ToolCallOutcome {
    const pgError = err as { code?: string; message?: string };
    const seconds = timeoutMs / 1000;
    if (pgError.code === QUERY_CANCELED || /Query read timeout/.test(pgError.message ?? '')) {
      return failure(
        name,
        'TIMEOUT',
        `the query took longer than ${seconds} s and was stopped; narrow the filters (for example a shorter date range) and try again`,
      );
    }
    if (typeof pgError.code === 'string' && pgError.code.startsWith('22')) {
      return failure(
        name,
        'QUERY_FAILED',
        `the database refused a value: ${pgError.message ?? 'invalid value'}; check the arguments`,
      );
    }
    if (
      (typeof pgError.code === 'string' && /^(08|57P)/.test(pgError.code)) ||
      /ECONNREFUSED|ECONNRESET|terminat|closed/i.test(pgError.message ?? '')
    ) {
      return failure(
        name,
        'DATA_UNAVAILABLE',
        'the report database is unavailable right now; try again later',
      );
    }
    const reference = randomUUID();
    this.logger.error(
      `report ${name} failed (reference ${reference}): ${pgError.message ?? String(err)}`,
    );
    return failure(
      name,
      'QUERY_FAILED',
      `the report query failed; the report may be misconfigured, so tell an administrator (reference ${reference})`,
    );
  }
}

const IDENTIFIER = /^[a-z][a-z0-9_]*$/;

/**
 * BEGIN READ ONLY, the pinned search_path (pg_temp last), the statement timeout and the
 * tenant's SELECT-only role. Built from identifiers that are checked here again (fail
 * closed), so the text can go as one simple-protocol script.
 */
export function sessionPreamble(
  tenantId: string,
  dataSchema: string,
  timeoutMs: number,
  traceId?: string,
): string {
  if (
    !IDENTIFIER.test(tenantId) ||
    !IDENTIFIER.test(dataSchema) ||
    !Number.isInteger(timeoutMs) ||
    (traceId !== undefined && !/^[0-9a-f]{32}$/.test(traceId))
  ) {
    throw new Error(
      `refusing to build a session for tenant ${JSON.stringify(tenantId)} / schema ${JSON.stringify(dataSchema)}`,
    );
  }
  return [
    'BEGIN TRANSACTION READ ONLY',
    `SET LOCAL search_path TO "${dataSchema}", pg_catalog, pg_temp`,
    `SET LOCAL statement_timeout = ${timeoutMs}`,
    `SET LOCAL ROLE "${readerRole(tenantId)}"`,
    ...(traceId ? [`SET LOCAL application_name = 'gateway trace=${traceId}'`] : []),
  ].join('; ');
}

function failure(tool: string, code: ToolErrorCode, message: string): ToolCallOutcome {
  return { tool, is_error: true, error: { code, message } };
}
