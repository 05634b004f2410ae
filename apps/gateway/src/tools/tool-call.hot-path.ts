import {
  argumentsOutOfBounds,
  CallLedger,
  CatalogService,
  pageRowsJson,
  ReportExecutor,
} from '@app/registry';
import type { ToolCallOutcome } from '@app/registry';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { toolError } from '../errors';
import { AsHotPath } from '../http/hot-path';
import type { HotAnswer, HotPath, HotRequest } from '../http/hot-path';
import { currentRequest } from '../pipeline/request-context';
import { parseCallRequest } from './call-body';
import { RequestPipeline, UNTRUSTED_ROWS_NOTICE } from '../pipeline/request-pipeline';

/**
 * POST /v1/tools/{name}/call for a report tool when everything but the query is in memory: a
 * token this instance verified, a catalog the LISTEN connection vouches for, the tool in the
 * caller's own visible set. It runs the same executor as ToolsController.call and sends the
 * same bytes; anything else (a new token, an unknown or forbidden tool, a built-in or
 * generated tool, a cold catalog) goes on to the controller, refusals included.
 *
 * It goes through the request pipeline like the list lanes: `cachedPrincipal` for the caller,
 * `callTool` for the limits, the `tool.call` span and the call counters (a LimitError goes on
 * to the controller, whose filter answers 429).
 */
@AsHotPath()
@Injectable()
export class ToolCallHotPath implements HotPath {
  readonly method = 'POST';
  readonly url = '/v1/tools/:name/call';

  constructor(
    private readonly pipeline: RequestPipeline,
    private readonly catalog: CatalogService,
    private readonly executor: ReportExecutor,
    @Optional() @Inject(CallLedger) private readonly ledger: CallLedger | null = null,
  ) {}

  answer(request: HotRequest): Promise<HotAnswer> | undefined {
    const principal = this.pipeline.cachedPrincipal(request.headers.authorization);
    const name = request.params?.name;
    // a chart is drawn by the controller (ReportCharts)
    if (!principal || name === undefined || request.query.chart !== undefined) return undefined;
    const resolved = this.catalog.cachedResolve(principal, name);
    if (!resolved || resolved.tool.kind !== 'report') return undefined;
    // the controller's body rules: a JSON-string `arguments` is parsed; a body it would refuse
    // with a 400, and the compact encoding, go on to the controller
    const parsed = parseCallRequest(request.body, request.query.encoding);
    if (!parsed.ok || parsed.value.encoding !== 'objects') return undefined;
    const args = parsed.value.arguments;
    const report = resolved.tool.report;
    const startedAt = performance.now();
    return this.pipeline
      .callTool(principal, name, args.ok ? args.value : undefined, 'rest', async () =>
        args.ok
          ? // the bound ToolCallService applies, before the executor's recursive checks
            (argumentsOutOfBounds(name, args.value) ??
            this.executor.call(resolved.catalog, report, args.value, principal))
          : toolError(name, 'INVALID_ARGUMENTS', args.message),
      )
      .then((outcome) => {
        this.ledger?.ended(principal, name, outcome, startedAt);
        return outcome;
      })
      .then((outcome) => ({
        headers: { 'content-type': CALL_CONTENT_TYPE },
        body: [Buffer.from(restBody(outcome))],
      }));
  }
}

/** What Fastify sends for the controller's object answer. */
export const CALL_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A tool call's REST answer: the outcome, its trace id and (for data) what the rows are. */
export type RestToolResult<T = ToolCallOutcome> = T & {
  trace_id: string | undefined;
  meta?: { untrusted_data: true; notice: string };
};

/** The REST answer of `outcome` in the current request (the controller and the fast lane). */
export function restResult<T extends { is_error: boolean }>(outcome: T): RestToolResult<T> {
  const trace_id = currentRequest()?.traceId;
  return outcome.is_error
    ? { ...outcome, trace_id }
    : { ...outcome, trace_id, meta: { untrusted_data: true, notice: UNTRUSTED_ROWS_NOTICE } };
}

/**
 * `JSON.stringify(restResult(outcome))`, with a report page's rows taken from the JSON the
 * executor already made for the byte cap instead of serialising them again.
 */
export function restBody(outcome: ToolCallOutcome): string {
  const answer = restResult(outcome);
  if (answer.is_error || answer.text !== undefined) return JSON.stringify(answer);
  const { result } = answer;
  const keys = Object.keys(answer);
  // a page from the result cache carries cached_at after its result (issue #41)
  const cached = keys[3] === 'cached_at' ? 1 : 0;
  // only the exact shapes toolPage and restResult build; anything else the plain way
  if (
    keys.length !== 5 + cached ||
    keys[0] !== 'tool' ||
    keys[1] !== 'is_error' ||
    keys[2] !== 'result' ||
    keys[3 + cached] !== 'trace_id' ||
    keys[4 + cached] !== 'meta' ||
    Object.keys(result).join() !== 'columns,rows,page,page_size,has_more'
  )
    return JSON.stringify(answer);
  const trace =
    answer.trace_id === undefined ? '' : `,"trace_id":${JSON.stringify(answer.trace_id)}`;
  return (
    `{"tool":${JSON.stringify(answer.tool)},"is_error":false,"result":{"columns":${JSON.stringify(result.columns)}` +
    `,"rows":${pageRowsJson(result)},"page":${JSON.stringify(result.page)},"page_size":${JSON.stringify(result.page_size)}` +
    `,"has_more":${JSON.stringify(result.has_more)}}` +
    `${cached ? `,"cached_at":${JSON.stringify(answer.cached_at)}` : ''}${trace},"meta":${JSON.stringify(answer.meta)}}`
  );
}
