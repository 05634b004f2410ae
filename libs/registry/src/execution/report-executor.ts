import { namedStatement, ReadCancelledError } from '@app/db';
import type { DatabaseHandle, GuardedReadResult, NamedStatement, SqlResult } from '@app/db';
import type { ReportTool } from '@app/templates';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { SourceScope } from '../catalog/model/catalog-records';
import { DatasourcePools } from '../datasources/run/source-pools';
import type { Principal } from '../access/principal';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';
import { activeCallSignal, activeTraceId, withSpan } from '../tracing';
import { DATABASE, REGISTRY_OPTIONS } from '../tokens';
import type { RegistryOptions } from '../tokens';
import { readFailure, tooLarge } from './read-failure';
import { ResultCache } from './result-cache';
import { columnsOf, rowObjects } from './result-rows';
import { sessionLimits, sessionSetup } from './session-setup';
import { readOnSource } from './source-read';
import { toolFailure, toolPage } from './tool-outcome';
import type { ToolCallOutcome } from './tool-outcome';

/**
 * Runs a report as parameterised SQL in a READ ONLY transaction with a statement timeout
 * and the search_path pinned to the tenant's data schema (pg_temp last, so a temp table
 * can never shadow a real one). Paging and the byte cap keep answers model-sized.
 */
@Injectable()
export class ReportExecutor {
  private readonly logger = new Logger(ReportExecutor.name);
  /** each report version's statement name, for the tenant it was last run for */
  private readonly statements = new WeakMap<
    ReportTool,
    { tenantId: string; scope: string; statement: NamedStatement }
  >();

  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryOptions,
    /** tenant data sources (issue #30); absent in specs that run reports here only */
    @Optional() @Inject(DatasourcePools) private readonly sources: DatasourcePools | null = null,
    /** the result cache (issue #41); absent in specs that run reports here only */
    @Optional() @Inject(ResultCache) private readonly results: ResultCache | null = null,
  ) {}

  async call(
    catalog: TenantCatalog,
    tool: ReportTool,
    input: unknown,
    principal: Principal,
    /**
     * aborted: the read is given up (cancelled on the server if it runs); see GuardedReadRequest.
     * Default: the signal of the call this async chain runs (withCallSignal), if any.
     */
    signal: AbortSignal | undefined = activeCallSignal(),
  ): Promise<ToolCallOutcome> {
    const name = tool.definition.name;
    const checked = tool.arguments.check(input);
    if (!checked.ok) return toolFailure(name, 'INVALID_ARGUMENTS', checked.message);
    // per-report limits from the metadata, else the gateway-wide settings
    const limits = tool.report.limits;
    const sourceName = tool.report.datasource;
    const source = sourceName === undefined ? undefined : catalog.tenant.sources?.[sourceName];
    if (sourceName !== undefined && !source)
      return toolFailure(
        name,
        'DATASOURCE_UNAVAILABLE',
        `the data source "${sourceName}" is not registered`,
      );
    const asked =
      limits?.statementTimeoutMs ?? source?.statementTimeoutMs ?? this.options.statementTimeoutMs;
    // on a tenant's source, never past the operator's bound (DATASOURCE_MAX_STATEMENT_TIMEOUT_MS)
    const bound = this.sources?.bounds.maxStatementTimeoutMs;
    const timeoutMs = source && bound !== undefined ? Math.min(asked, bound) : asked;
    const maxBytes = limits?.maxResultBytes ?? this.options.maxResultBytes;
    const pageSize = Math.min(checked.pageSize, limits?.maxRows ?? checked.pageSize);
    const paged = tool.pagedQuery;
    const values = [
      ...tool.parameterValues(checked.args, principal),
      ...paged.pageValues(checked.page, pageSize),
    ];
    // a pass_identity source is told who asks (issue #42); its answers are keyed on it too
    const claims =
      source?.passIdentity && this.sources ? this.sources.claimsOf(principal) : undefined;
    const read = (readSignal?: AbortSignal) =>
      this.readPage(
        catalog,
        tool,
        { source, sourceName, values, timeoutMs, maxBytes, claims },
        {
          page: checked.page,
          pageSize,
          signal: readSignal,
        },
      );
    const ttl = tool.report.cacheTtlSeconds;
    if (!ttl || !this.results) return read(signal);
    // one load answers every caller waiting on the key: no single caller's signal may cancel it
    if (signal?.aborted)
      return toolFailure(name, 'REFUSED', 'the call was cancelled before it finished');
    return this.results.answer(
      name,
      catalog.tenant.id,
      {
        scope: await this.results.scope(catalog.tenant),
        reportId: tool.report.id,
        catalogVersion: catalog.version,
        sourceRevision: `${source?.revision ?? ''}${claims === undefined ? '' : `\0${claims}`}`,
        text: paged.text,
        values,
      },
      ttl,
      () => read(),
    );
  }

  /** One page of the report's rows from its database (the gateway's, or its data source). */
  private async readPage(
    catalog: TenantCatalog,
    tool: ReportTool,
    q: {
      source: SourceScope | undefined;
      sourceName: string | undefined;
      values: unknown[];
      timeoutMs: number;
      maxBytes: number;
      claims?: string;
    },
    paging: { page: number; pageSize: number; signal?: AbortSignal },
  ): Promise<ToolCallOutcome> {
    const name = tool.definition.name;
    const { source, sourceName, values, timeoutMs, maxBytes, claims } = q;
    const { pageSize, signal } = paging;
    const paged = tool.pagedQuery;
    let result: GuardedReadResult;
    try {
      result =
        source && sourceName !== undefined
          ? await readOnSource(this.sources, this.options, catalog.tenant.id, sourceName, source, {
              text: paged.text,
              values,
              maxBytes,
              timeoutMs,
              statement: this.statementFor(
                catalog.tenant.id,
                `source:${sourceName}:${source.schema}`,
                tool,
              ),
              signal,
              claims,
            })
          : await this.read(
              catalog.tenant,
              paged.text,
              values,
              maxBytes,
              timeoutMs,
              catalog.tenant.dataSchema
                ? this.statementFor(catalog.tenant.id, catalog.tenant.dataSchema, tool)
                : undefined,
              signal,
            );
    } catch (err) {
      if (err instanceof ReadCancelledError)
        return toolFailure(name, 'REFUSED', 'the call was cancelled before it finished');
      return readFailure(name, err, timeoutMs, (line) => this.logger.error(line));
    }
    const hasMore = result.rows.length > pageSize;
    const rows = rowObjects(result, hasMore ? pageSize : result.rows.length);
    // serialised once: the cap is checked on these bytes and the answer reuses them
    const rowsJson = JSON.stringify(rows);
    const bytes = Buffer.byteLength(rowsJson);
    if (bytes > maxBytes) return tooLarge(name, bytes, false, maxBytes);
    return toolPage(
      name,
      {
        columns: columnsOf(result),
        rows,
        page: paging.page,
        page_size: pageSize,
        has_more: hasMore,
      },
      rowsJson,
    );
  }

  /**
   * The named statement a report version runs as for this tenant (ADR 0005): parsed once per
   * pooled connection. Ad hoc SQL (runReadOnly) keeps the unnamed statement.
   */
  private statementFor(tenantId: string, scope: string, tool: ReportTool): NamedStatement {
    const known = this.statements.get(tool);
    if (known && known.tenantId === tenantId && known.scope === scope) return known.statement;
    const { report } = tool;
    const statement = namedStatement(
      tenantId,
      scope,
      report.id,
      report.version,
      tool.pagedQuery.text,
    );
    this.statements.set(tool, { tenantId, scope, statement });
    return statement;
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
    maxBytes = MAX_UNPAGED_BYTES,
    timeoutMs = this.options.statementTimeoutMs,
    signal?: AbortSignal,
  ): Promise<SqlResult> {
    const result = await this.read(tenant, text, values, maxBytes, timeoutMs, undefined, signal);
    return { fields: result.fields, rows: rowObjects(result, result.rows.length) };
  }

  /**
   * One round trip (on Postgres): the session setup and the query are written together and
   * closed by one Sync (one implicit transaction, read-only from its first statement), so an
   * error anywhere means the query did not run. Rows are
   * read one by one against `maxBytes`; a result past it is dropped while it arrives. The
   * request's trace id goes in as application_name: a slow query in pg_stat_activity leads back.
   */
  private read(
    tenant: { id: string; dataSchema: string | null },
    text: string,
    values: readonly unknown[],
    maxBytes: number,
    timeoutMs: number,
    statement?: NamedStatement,
    signal?: AbortSignal,
  ): Promise<GuardedReadResult> {
    if (!tenant.dataSchema) throw new Error(`tenant ${tenant.id} has no datasource`);
    const setup = sessionSetup(
      tenant.id,
      tenant.dataSchema,
      { ...sessionLimits(this.options), statementTimeoutMs: timeoutMs },
      { traceId: activeTraceId(), customPlans: statement !== undefined },
    );
    const attributes = { 'db.system': 'postgresql', 'gateway.tenant': tenant.id };
    // The client gives up shortly after the server should have; a hung connection is dropped.
    return withSpan('sql', attributes, () =>
      this.database.guardedRead({
        setup,
        text,
        values,
        maxBytes,
        timeoutMs: timeoutMs + 1000,
        statement,
        signal,
      }),
    );
  }
}

/** What an unpaged read (a generated tool's ctx.query) may return at most. */
const MAX_UNPAGED_BYTES = 16 * 1024 * 1024;
