import { argumentsOutOfBounds, CallLedger, CatalogService, ReportExecutor } from '@app/registry';
import { DISCLOSURE_TOOL_NAMES } from '@app/selection';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { gatewayConfig } from '../../config/gateway.config';
import type { GatewayConfig } from '../../config/gateway.config';
import { AsHotPath } from '../../http/hot-path';
import type { HotAnswer, HotPath, HotRequest } from '../../http/hot-path';
import { RequestPipeline } from '../../pipeline/request-pipeline';
import { plainSessionRequest } from './mcp-list.hot-path';
import { noteCachePreference } from '../shared/cache-preference';
import { mcpCallResult } from '../shared/mcp-server.factory';
import { McpSessions } from './mcp-sessions.service';

/**
 * POST /mcp `tools/call` of a report tool in an open session, answered without the SDK
 * transport (request conversion, zod validation of the request and of the result, the
 * per-request stream bookkeeping). It takes only what the SDK path would run the same way: a
 * plain request the transport accepts as is (see plainSessionRequest), params exactly
 * `{name, arguments?}` with an object `arguments`, a report tool already resolved for the
 * caller in memory (the REST call lane's check). It runs the same pipeline call (limits, span,
 * counters) and executor, and answers the SDK's JSON-RPC response. Anything else (a built-in,
 * a disclosure tool, a cold catalog, a limit refusal) goes to McpController and the SDK.
 */
@AsHotPath()
@Injectable()
export class McpCallHotPath implements HotPath {
  readonly method = 'POST';
  readonly url = '/mcp';

  constructor(
    private readonly pipeline: RequestPipeline,
    private readonly sessions: McpSessions,
    private readonly catalog: CatalogService,
    private readonly executor: ReportExecutor,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    @Optional() @Inject(CallLedger) private readonly ledger: CallLedger | null = null,
  ) {}

  answer(request: HotRequest): Promise<HotAnswer> | undefined {
    const call = plainToolsCall(request.body);
    if (call === undefined || DISCLOSURE_TOOL_NAMES.includes(call.name)) return undefined;
    const held = plainSessionRequest(request, this.pipeline, this.sessions);
    if (!held) return undefined;
    const { principal, sessionId } = held;
    const resolved = this.catalog.cachedResolve(principal, call.name);
    if (!resolved || resolved.tool.kind !== 'report') return undefined;
    const report = resolved.tool.report;
    const { name, args } = call;
    const startedAt = performance.now();
    noteCachePreference((request.body as { params?: unknown } | undefined)?.params);
    return this.pipeline
      .callTool(
        principal,
        name,
        args,
        'mcp',
        async () =>
          // the bound ToolCallService applies, before the executor's recursive checks
          argumentsOutOfBounds(name, args) ??
          this.executor.call(resolved.catalog, report, args, principal),
      )
      .then((outcome) => {
        this.ledger?.ended(principal, name, outcome, startedAt);
        const result = mcpCallResult(outcome, this.config.mcp.textMaxBytes);
        return {
          headers: { 'content-type': 'application/json', 'mcp-session-id': sessionId },
          body: [Buffer.from(JSON.stringify({ result, jsonrpc: '2.0', id: call.id }))],
        };
      });
  }
}

/** A JSON-RPC tools/call request with params exactly {name, arguments?}, else undefined. */
function plainToolsCall(
  body: unknown,
): { id: string | number; name: string; args: Record<string, unknown> } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { jsonrpc, method, id, params, ...rest } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || Object.keys(rest).length > 0)
    return undefined;
  if (typeof id !== 'string' && !Number.isInteger(id)) return undefined;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const { name, arguments: args, ...other } = params as Record<string, unknown>;
  if (typeof name !== 'string' || Object.keys(other).length > 0) return undefined;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return undefined;
  return { id: id as string | number, name, args: (args ?? {}) as Record<string, unknown> };
}
