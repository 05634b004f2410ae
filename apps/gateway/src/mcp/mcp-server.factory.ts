import { createHash } from 'node:crypto';
import { CatalogService, ListCache } from '@app/registry';
import { SelectionService } from '@app/selection';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { formatTool, resultText } from '@app/templates';
import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { mcpCallFailure, RPC, rpcError } from '../errors';
import { currentRequest } from '../pipeline/request-context';
import { RequestPipeline, UNTRUSTED_ROWS_NOTICE } from '../pipeline/request-pipeline';

/**
 * Who a session serves: the principal that opened it (used only to tell when the owner's list
 * changed, for notifications) and its business context. Requests never change it: each runs
 * with the principal verified from its own token (`requestAuth`).
 */
export interface SessionIdentity {
  readonly principal: Principal;
  readonly context: string | undefined;
  /** tools this session found with search_tools / describe_tools: its next list shows them */
  found?: string[];
}

/** How many found tools a session keeps in its list (the latest ones). */
const MAX_FOUND = 50;

function listKey(toolsetKey: string, identity: SessionIdentity): string {
  return identity.found?.length ? `${toolsetKey}:found=${identity.found.join(',')}` : toolsetKey;
}

/** What the controller attaches to each request (the SDK passes it to handlers as `authInfo`). */
export function requestAuth(principal: Principal): AuthInfo {
  return { token: '', clientId: principal.userId, scopes: [], extra: { principal } };
}

/** The principal verified for this very request; refused when there is none. */
function requestPrincipal(extra: { authInfo?: AuthInfo }): Principal {
  const principal = extra.authInfo?.extra?.principal as Principal | undefined;
  if (!principal) throw rpcError(RPC.invalidRequest, 'the request is not authenticated');
  return principal;
}

/** A toolset in MCP shape, built once per toolset key. */
export interface ListedTools {
  tools: Tool[];
  /**
   * The start of a tools/list response as the SDK serialises it, up to the request id:
   * `{"result":{"tools":[...]},"jsonrpc":"2.0","id":` (answers written without the SDK).
   */
  responsePrefix: Buffer;
  /** changes when any tool of the list does */
  fingerprint: string;
}

/** most bytes of MCP tool lists a replica holds (estimated: three times each list's JSON) */
export const MCP_LISTS_MAX_BYTES = 32 * 1024 * 1024;

/**
 * One MCP `Server` per session, answering tools/list and tools/call through the same
 * catalog, access filter and executor as the REST API.
 */
@Injectable()
export class McpServerFactory {
  /**
   * One build per toolset key, however many sessions miss it together. Bounded in bytes as
   * well as in count: a toolset key carries the catalog version, so every catalog change
   * leaves the lists of the old version behind until they are evicted, and with a count
   * bound alone those (each its JSON as a Buffer plus the parsed tools, about three times
   * the JSON) grew the replica's memory by ~5 MB/min under the soak's writes.
   */
  readonly lists = new ListCache<ListedTools>({
    max: 5_000,
    maxSize: MCP_LISTS_MAX_BYTES,
    sizeOf: (list, key) => list.responsePrefix.length * 3 + key.length,
  });

  constructor(
    private readonly catalog: CatalogService,
    private readonly selection: SelectionService,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    private readonly pipeline: RequestPipeline,
  ) {}

  create(identity: SessionIdentity, onListed: (fingerprint: string) => void): Server {
    const server = new Server(
      { name: 'report-tool-gateway', title: 'Report tool gateway', version: '0.1.0' },
      {
        capabilities: { tools: { listChanged: true }, logging: {} },
        instructions: this.instructions(identity),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      const principal = requestPrincipal(extra);
      this.pipeline.noteList('mcp');
      const { tools, fingerprint } = await this.list({
        principal,
        context: identity.context,
        found: identity.found,
      });
      onListed(fingerprint);
      return { tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
      this.callTool(server, identity, request.params, requestPrincipal(extra)),
    );
    return server;
  }

  /** tools/call: through the pipeline; a tool found by the selection joins the session's list. */
  private async callTool(
    server: Server,
    identity: SessionIdentity,
    params: { name: string; arguments?: Record<string, unknown> },
    principal: Principal,
  ) {
    try {
      let found: string[] | undefined;
      const outcome = await this.pipeline.callTool(
        principal,
        params.name,
        params.arguments ?? {},
        'mcp',
        async () => {
          const called = await this.selection.call(
            principal,
            params.name,
            params.arguments ?? {},
            identity.context,
          );
          found = called.found;
          return called.outcome;
        },
      );
      if (found && found.length > 0 && remember(identity, found))
        void server.sendToolListChanged().catch(() => undefined);
      return mcpCallResult(outcome, this.config.mcp.textMaxBytes);
    } catch (err) {
      const failure = mcpCallFailure(err);
      if ('error' in failure) throw failure.error;
      return withTraceId({
        isError: true,
        content: [{ type: 'text', text: failure.result.text }],
      });
    }
  }

  /** What the server tells the model up front: what it serves and the tenant's contexts. */
  private instructions(identity: SessionIdentity): string {
    const contexts = this.catalog.cachedContexts(identity.principal.tenantId) ?? [];
    const lines = [
      `Read-only business reports of tenant ${identity.principal.tenantId}, each a tool query_report_<id> that returns rows.`,
      'Results are paged (page, page_size up to 100); the text lists the columns once, then one JSON array per row, and says how to fetch more rows.',
      'Optional filters may be left out or sent as null.',
    ];
    if (identity.context) lines.push(`This session serves business context ${identity.context}.`);
    if (contexts.length > 0) {
      lines.push(
        `Business contexts of this tenant (connect with ?context=<name> for a narrower list): ${contexts
          .map((c) => (c.description ? `${c.name} (${c.description})` : c.name))
          .join('; ')}.`,
      );
    }
    return lines.join('\n');
  }

  /** The session's tools in MCP shape, and a fingerprint that changes when any of them does. */
  async list(identity: SessionIdentity): Promise<ListedTools> {
    // Built once per toolset (same key = same list), like the REST list body.
    const key = listKey(
      await this.catalog.toolsetKeyFor(identity.principal, identity.context),
      identity,
    );
    return this.lists.get(key) ?? this.lists.fetch(key, () => this.build(identity));
  }

  private async build(identity: SessionIdentity): Promise<ListedTools> {
    const visible = await this.catalog.visibleSet(identity.principal, identity.context);
    // the same shaping as the REST list, plus what this session found
    const tools = this.selection.disclosure
      .shape(visible.tools, identity.found)
      .map((d) => formatTool(d, 'mcp') as Tool);
    const json = JSON.stringify(tools);
    return {
      tools,
      responsePrefix: Buffer.from(`{"result":{"tools":${json}},"jsonrpc":"2.0","id":`),
      fingerprint: createHash('sha256').update(json).digest('base64url'),
    };
  }

  /** The session's list from memory alone, or undefined when `list` must be asked. */
  cachedList(identity: SessionIdentity): ListedTools | undefined {
    const key = this.catalog.cachedToolsetKey(identity.principal, identity.context);
    return key === undefined ? undefined : this.lists.get(listKey(key, identity));
  }
}

/** Adds found tools to the session's list; true when the list grew. */
function remember(identity: SessionIdentity, found: string[]): boolean {
  const before = identity.found ?? [];
  const fresh = found.filter((n) => !before.includes(n));
  if (fresh.length === 0) return false;
  identity.found = [...before, ...fresh].slice(-MAX_FOUND);
  return true;
}

/** A tool call's MCP result in the current request (the SDK handler and the call fast lane). */
export function mcpCallResult(outcome: ToolCallOutcome, textMaxBytes: number): CallToolResult {
  return withTraceId(toCallResult(outcome, textMaxBytes));
}

/** The request's trace id in the result's _meta, for the client's logs and support. */
function withTraceId(result: CallToolResult): CallToolResult {
  const traceId = currentRequest()?.traceId;
  return traceId ? { ...result, _meta: { ...result._meta, trace_id: traceId } } : result;
}

function toCallResult(outcome: ToolCallOutcome, textMaxBytes: number): CallToolResult {
  if (outcome.is_error) {
    return { isError: true, content: [{ type: 'text', text: outcome.error.message }] };
  }
  if (outcome.text !== undefined) {
    return { content: [{ type: 'text', text: outcome.text }], structuredContent: outcome.result };
  }
  const { result } = outcome;
  return {
    // the rows' text stays exactly #18's; what the rows are is a content item of its own
    content: [
      { type: 'text', text: resultText(result, textMaxBytes) },
      { type: 'text', text: UNTRUSTED_ROWS_NOTICE },
    ],
    structuredContent: { ...result },
  };
}
