import { createHash } from 'node:crypto';
import { CatalogService, RegistryError, ToolCallService } from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { formatTool, resultText } from '@app/templates';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';

/** Who a session serves; the principal is refreshed from each request's token. */
export interface SessionIdentity {
  principal: Principal;
  context: string | undefined;
}

/**
 * A JSON-RPC error the SDK sends as is. (The SDK's McpError puts "MCP error <code>: " into its
 * message, and clients add that prefix again when they read it.)
 */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
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

/**
 * One MCP `Server` per session, answering tools/list and tools/call through the same
 * catalog, access filter and executor as the REST API.
 */
@Injectable()
export class McpServerFactory {
  private readonly lists = new LRUCache<string, ListedTools>({ max: 5_000 });

  constructor(
    private readonly catalog: CatalogService,
    private readonly calls: ToolCallService,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
  ) {}

  create(identity: SessionIdentity, onListed: (fingerprint: string) => void): Server {
    const server = new Server(
      { name: 'report-tool-gateway', title: 'Report tool gateway', version: '0.1.0' },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: this.instructions(identity),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const { tools, fingerprint } = await this.list(identity);
      onListed(fingerprint);
      return { tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      try {
        const outcome = await this.calls.call(
          identity.principal,
          request.params.name,
          request.params.arguments ?? {},
        );
        return toCallResult(outcome, this.config.mcp.textMaxBytes);
      } catch (err) {
        if (err instanceof RegistryError && err.code === 'TOOL_NOT_FOUND')
          throw rpcError(ErrorCode.InvalidParams, err.message);
        if (err instanceof RegistryError) throw rpcError(ErrorCode.InternalError, err.message);
        throw rpcError(ErrorCode.InternalError, 'internal error; the call was not completed');
      }
    });
    return server;
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
    const key = await this.catalog.toolsetKeyFor(identity.principal, identity.context);
    let listed = this.lists.get(key);
    if (!listed) {
      const visible = await this.catalog.visibleSet(identity.principal, identity.context);
      const tools = visible.tools.map((t) => formatTool(t.definition, 'mcp') as Tool);
      const json = JSON.stringify(tools);
      listed = {
        tools,
        responsePrefix: Buffer.from(`{"result":{"tools":${json}},"jsonrpc":"2.0","id":`),
        fingerprint: createHash('sha256').update(json).digest('base64url'),
      };
      this.lists.set(key, listed);
    }
    return listed;
  }

  /** The session's list from memory alone, or undefined when `list` must be asked. */
  cachedList(identity: SessionIdentity): ListedTools | undefined {
    const key = this.catalog.cachedToolsetKey(identity.principal, identity.context);
    return key === undefined ? undefined : this.lists.get(key);
  }
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
    content: [{ type: 'text', text: resultText(result, textMaxBytes) }],
    structuredContent: { ...result },
  };
}
