import { CatalogService, RegistryError } from '@app/registry';
import type { Principal } from '@app/registry';
import { Inject, Injectable } from '@nestjs/common';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { gatewayConfig } from '../../config/gateway.config';
import type { GatewayConfig } from '../../config/gateway.config';
import { ERRORS, RPC } from '../../errors';
import { LimitError } from '../../pipeline/limits';
import { RequestPipeline } from '../../pipeline/request-pipeline';
import { ChartViewResource } from '../view/chart-view.resource';
import { McpServerFactory } from '../shared/mcp-server.factory';
import { invalidToolCallParams } from '../shared/mcp-request-rules';
import type { RpcId } from './mcp-era';
import { McpListenStreams } from './mcp-listen';
import type { ListenFilter } from './mcp-listen';
import { McpTaskMethods } from '../tasks/mcp-task-methods';
import { declaresTasks, McpTasks, TASKS_EXTENSION } from '../tasks/mcp-tasks.service';
import {
  errorFrame,
  listFrame,
  MCP_CODES,
  resultFrame,
  send,
  supportedVersions,
} from '../shared/mcp-wire';

/** Who asks, in which business context, from the request's own token and query. */
export interface StatelessCaller {
  readonly principal: Principal;
  readonly context: string | undefined;
}

/** Methods 2026-07-28 removed: a modern request naming one gets 404 / -32601 like any unknown. */
type Handler = (caller: StatelessCaller, request: JSONRPCRequest, raw: ServerResponse) => unknown;

/**
 * Revision 2026-07-28 on /mcp: each request carries its version and capabilities in `_meta`,
 * there is no session, so any replica answers from the request alone (the token's principal,
 * `?context=`). Served: `server/discover`, `tools/list` (the catalog's cached list bytes with
 * `ttlMs` and a private `cacheScope`), `tools/call` (the same pipeline call as sessions) and
 * `subscriptions/listen`. Anything else is 404 / -32601, errors echo the request id.
 */
@Injectable()
export class McpStateless {
  private readonly handlers: Readonly<Record<string, Handler>> = {
    'server/discover': (caller, request, raw) => this.discover(caller, request.id, raw),
    'tools/list': (caller, request, raw) => this.list(caller, request.id, raw),
    'tools/call': (caller, request, raw) => this.call(caller, request, raw),
    'subscriptions/listen': (caller, request, raw) => this.listen(caller, request, raw),
    // the MCP Apps chart View report tools declare (#33): one resource, the same for everyone
    'resources/list': (_caller, request, raw) =>
      send(
        raw,
        200,
        resultFrame(request.id, {
          resources: this.view.list(),
          ttlMs: this.config.mcp.listTtlMs,
          cacheScope: 'public',
        }),
      ),
    'resources/read': (_caller, request, raw) => this.readResource(request, raw),
    'tasks/get': (caller, request, raw) => this.taskMethods.get(caller.principal, request, raw),
    'tasks/cancel': (caller, request, raw) =>
      this.taskMethods.cancel(caller.principal, request, raw),
    'tasks/update': (caller, request, raw) =>
      this.taskMethods.update(caller.principal, request, raw),
  };
  private readonly taskMethods: McpTaskMethods;

  constructor(
    private readonly servers: McpServerFactory,
    private readonly listens: McpListenStreams,
    private readonly tasks: McpTasks,
    private readonly pipeline: RequestPipeline,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    private readonly view: ChartViewResource,
    private readonly catalog: CatalogService,
  ) {
    this.taskMethods = new McpTaskMethods(tasks);
  }

  /** Answers one classified modern request on the raw response (the caller hijacked it). */
  async answer(caller: StatelessCaller, request: JSONRPCRequest, raw: ServerResponse) {
    const handler = Object.prototype.hasOwnProperty.call(this.handlers, request.method)
      ? this.handlers[request.method]
      : undefined;
    if (!handler)
      return send(
        raw,
        404,
        errorFrame(request.id, MCP_CODES.methodNotFound, `Method not found: ${request.method}`),
      );
    try {
      await handler(caller, request, raw);
    } catch (err) {
      this.refuse(raw, request.id, err);
    }
  }

  private discover(caller: StatelessCaller, id: RpcId, raw: ServerResponse): void {
    send(
      raw,
      200,
      resultFrame(id, {
        supportedVersions: supportedVersions(),
        capabilities: {
          tools: { listChanged: true },
          resources: {},
          extensions: { [TASKS_EXTENSION]: {} },
        },
        instructions: this.servers.instructions(caller, true),
        // the instructions name the caller's tenant and contexts
        ttlMs: this.config.mcp.listTtlMs,
        cacheScope: 'private',
      }),
    );
  }

  private async list(caller: StatelessCaller, id: RpcId, raw: ServerResponse): Promise<void> {
    this.pipeline.noteList('mcp');
    const listed = await this.servers.list(caller);
    send(raw, 200, listFrame(id, listed.body, this.config.mcp.listTtlMs));
  }

  private async call(
    caller: StatelessCaller,
    request: JSONRPCRequest,
    raw: ServerResponse,
  ): Promise<void> {
    const bad = invalidToolCallParams(request);
    if (bad !== undefined) return send(raw, 200, errorFrame(request.id, RPC.invalidParams, bad));
    const params = request.params as { name: string; arguments?: Record<string, unknown> };
    if (!declaresTasks(request.params)) {
      const { result } = await this.servers.call(caller.principal, caller.context, params);
      return send(raw, 200, resultFrame(request.id, { ...result }));
    }
    // a client that takes tasks gets one when the report runs long, or at once when it says so
    const immediately = await this.declaresRunAsTask(caller.principal, params.name);
    const ran = await this.tasks.run(
      caller.principal,
      toolOfCall(params),
      this.servers.call(caller.principal, caller.context, params).then((c) => ({ ...c.result })),
      { immediately },
    );
    if ('result' in ran) return send(raw, 200, resultFrame(request.id, ran.result));
    send(raw, 200, resultFrame(request.id, { ...McpTasks.wire(ran.task), resultType: 'task' }));
  }

  /**
   * The called tool is a report of the caller's that declares `run_as_task`. Anything else
   * (unknown, forbidden, a built-in such as call_tool) is false here: the call itself answers.
   */
  private async declaresRunAsTask(principal: Principal, name: string): Promise<boolean> {
    const resolved =
      this.catalog.cachedResolve(principal, name) ??
      (await this.catalog.resolve(principal, name).catch(() => undefined));
    return resolved?.tool.kind === 'report' && resolved.tool.report.report.runAsTask === true;
  }

  private readResource(request: JSONRPCRequest, raw: ServerResponse): void {
    const uri = (request.params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== 'string')
      return send(
        raw,
        200,
        errorFrame(
          request.id,
          MCP_CODES.invalidParams,
          'Invalid params: resources/read needs a uri',
        ),
      );
    const contents = this.view.read(uri);
    if (!contents)
      return send(
        raw,
        200,
        errorFrame(request.id, MCP_CODES.invalidParams, `Resource not found: ${uri}`, { uri }),
      );
    send(
      raw,
      200,
      resultFrame(request.id, {
        contents: [contents],
        ttlMs: this.config.mcp.listTtlMs,
        cacheScope: 'public',
      }),
    );
  }

  private async listen(
    caller: StatelessCaller,
    request: JSONRPCRequest,
    raw: ServerResponse,
  ): Promise<void> {
    const filter = listenFilter(request.params);
    if (typeof filter === 'string')
      return send(raw, 400, errorFrame(request.id, MCP_CODES.invalidParams, filter));
    // task status notifications need the Tasks extension declared, like tasks/*
    if (filter.taskIds && this.taskMethods.withoutTasks(request, raw)) return;
    this.pipeline.noteStream();
    await this.listens.open(request.id, caller.principal, caller.context, filter, raw);
  }

  /** A thrown refusal as the JSON-RPC error of this request (its id, its table status). */
  private refuse(raw: ServerResponse, id: RpcId, err: unknown): void {
    if (raw.headersSent) return void raw.end();
    if (err instanceof RegistryError) {
      const { http, jsonRpc } = ERRORS[err.code];
      this.pipeline.noteOutcome(err.code);
      return send(raw, http, errorFrame(id, jsonRpc ?? RPC.internalError, err.message));
    }
    if (err instanceof LimitError) {
      this.pipeline.noteOutcome(err.code);
      raw.setHeader('retry-after', String(err.retryAfterSeconds));
      const data = { limit: err.limit, retryAfterSeconds: err.retryAfterSeconds };
      const { http, jsonRpc } = ERRORS.RATE_LIMITED;
      return send(raw, http, errorFrame(id, jsonRpc ?? RPC.invalidRequest, err.message, data));
    }
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number' && err instanceof Error)
      return send(raw, 200, errorFrame(id, code, err.message));
    this.pipeline.noteOutcome('INTERNAL');
    send(raw, 500, errorFrame(id, RPC.internalError, 'internal error'));
  }
}

/** The tool a call runs: call_tool's inner tool, else the one named. */
function toolOfCall(params: { name: string; arguments?: Record<string, unknown> }): string {
  const inner = params.arguments?.name;
  return params.name === 'call_tool' && typeof inner === 'string' ? inner : params.name;
}

/** The `notifications` filter of a listen request, or why it is malformed. */
function listenFilter(params: unknown): ListenFilter | string {
  const notifications = (params as { notifications?: unknown } | undefined)?.notifications;
  if (notifications === undefined) return { toolsListChanged: false };
  if (typeof notifications !== 'object' || notifications === null || Array.isArray(notifications))
    return 'Invalid params: subscriptions/listen params.notifications must be an object';
  const { toolsListChanged, taskIds } = notifications as {
    toolsListChanged?: unknown;
    taskIds?: unknown;
  };
  if (
    taskIds !== undefined &&
    (!Array.isArray(taskIds) || !taskIds.every((t) => typeof t === 'string'))
  )
    return 'Invalid params: subscriptions/listen params.notifications.taskIds must be an array of task ids';
  return {
    toolsListChanged: toolsListChanged === true,
    ...(taskIds === undefined ? {} : { taskIds: taskIds as string[] }),
  };
}
