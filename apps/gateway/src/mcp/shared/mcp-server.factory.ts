import { CatalogService } from '@app/registry';
import { SelectionService } from '@app/selection';
import type { DisclosurePolicy } from '@app/selection';
import type { ListVariant, Principal, ToolCallOutcome } from '@app/registry';
import { resultText } from '@app/templates';
import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { gatewayConfig } from '../../config/gateway.config';
import type { GatewayConfig } from '../../config/gateway.config';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { mcpCallFailure, RPC, rpcError } from '../../errors';
import { currentRequest } from '../../pipeline/request-context';
import { noteCachePreference } from './cache-preference';
import { RequestPipeline, UNTRUSTED_ROWS_NOTICE } from '../../pipeline/request-pipeline';
import { ChartViewResource } from '../view/chart-view.resource';
import { listedTools, toolsOf } from './mcp-list-frame';
import type { ListedTools } from './mcp-list-frame';

export type { ListedTools } from './mcp-list-frame';

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

/** An MCP list that also shows the tools a session found (beside the shared toolset list). */
function foundVariant(disclosure: DisclosurePolicy, found: string[]): ListVariant {
  return { suffix: `found=${found.join(',')}`, shape: (tools) => disclosure.shape(tools, found) };
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

/**
 * One MCP `Server` per session, answering tools/list and tools/call through the same
 * catalog, access filter and executor as the REST API.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly catalog: CatalogService,
    private readonly selection: SelectionService,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    private readonly pipeline: RequestPipeline,
    private readonly view: ChartViewResource,
  ) {}

  create(identity: SessionIdentity, onListed: (fingerprint: string) => void): Server {
    const server = new Server(
      { name: 'report-tool-gateway', title: 'Report tool gateway', version: '0.1.0' },
      {
        capabilities: { tools: { listChanged: true }, resources: {}, logging: {} },
        instructions: this.instructions(identity),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      const principal = requestPrincipal(extra);
      this.pipeline.noteList('mcp');
      const listed = await this.list({
        principal,
        context: identity.context,
        found: identity.found,
      });
      onListed(listed.fingerprint);
      return { tools: toolsOf(listed) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
      this.callTool(server, identity, request.params, requestPrincipal(extra)),
    );
    // the MCP Apps View report tools declare (issue #33); the same for every caller
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: this.view.list() }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => {
      const contents = this.view.read(request.params.uri);
      if (!contents)
        throw new McpError(ErrorCode.InvalidParams, `Resource not found: ${request.params.uri}`, {
          uri: request.params.uri,
        });
      return { contents: [contents] };
    });
    return server;
  }

  /** tools/call in a session: a tool found by the selection joins the session's list. */
  private async callTool(
    server: Server,
    identity: SessionIdentity,
    params: { name: string; arguments?: Record<string, unknown> },
    principal: Principal,
  ): Promise<CallToolResult> {
    const { result, found } = await this.call(principal, identity.context, params);
    if (found && found.length > 0 && remember(identity, found))
      void server.sendToolListChanged().catch(() => undefined);
    return result;
  }

  /**
   * tools/call through the pipeline (limits, span, counters), for sessions and stateless
   * requests alike: the result, and the tools a search/describe found. A refusal the client
   * must see as a JSON-RPC error (an unknown tool) is thrown with its code.
   */
  async call(
    principal: Principal,
    context: string | undefined,
    params: { name: string; arguments?: Record<string, unknown> },
  ): Promise<{ result: CallToolResult; found?: string[] }> {
    noteCachePreference(params);
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
            context,
          );
          found = called.found;
          return called.outcome;
        },
      );
      return { result: mcpCallResult(outcome, this.config.mcp.textMaxBytes), found };
    } catch (err) {
      const failure = mcpCallFailure(err);
      if ('error' in failure) throw failure.error;
      return {
        result: withTraceId({
          isError: true,
          content: [{ type: 'text', text: failure.result.text }],
        }),
      };
    }
  }

  /** What the server tells the model up front: what it serves and the tenant's contexts. */
  instructions(
    identity: Pick<SessionIdentity, 'principal' | 'context'>,
    stateless = false,
  ): string {
    const contexts = this.catalog.cachedContexts(identity.principal.tenantId) ?? [];
    const lines = [
      `Read-only business reports of tenant ${identity.principal.tenantId}, each a tool query_report_<id> that returns rows.`,
      'Results are paged (page, page_size up to 100); the text lists the columns once, then one JSON array per row, and says how to fetch more rows.',
      'Optional filters may be left out or sent as null.',
    ];
    if (identity.context)
      lines.push(
        `${stateless ? 'These tools serve' : 'This session serves'} business context ${identity.context}.`,
      );
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
    const { principal, context } = identity;
    const { body } = await this.catalog.listBody(principal, 'mcp', context, this.variant(identity));
    return listedTools(body);
  }

  /** The session's list from memory alone, or undefined when `list` must be asked. */
  cachedList(identity: SessionIdentity): ListedTools | undefined {
    const { principal, context } = identity;
    const hit = this.catalog.cachedListBody(principal, 'mcp', context, this.variant(identity));
    return hit && listedTools(hit.body);
  }

  /** Without found tools a session's list is the toolset's (the list shaper is the disclosure). */
  private variant(identity: SessionIdentity): ListVariant | undefined {
    return identity.found?.length
      ? foundVariant(this.selection.disclosure, identity.found)
      : undefined;
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
  const result = withTraceId(toCallResult(outcome, textMaxBytes));
  // rows from the result cache say when they were read (issue #41)
  if (outcome.is_error || outcome.text !== undefined || outcome.cached_at === undefined)
    return result;
  return { ...result, _meta: { ...result._meta, cached_at: outcome.cached_at } };
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
