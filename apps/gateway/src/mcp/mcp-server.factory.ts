import { createHash } from 'node:crypto';
import { CatalogService, RegistryError } from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { formatTool } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { LimitError } from '../pipeline/limits';
import { currentRequest } from '../pipeline/request-context';
import { RequestPipeline, UNTRUSTED_ROWS_NOTICE } from '../pipeline/request-pipeline';

/** Who a session serves; the principal is refreshed from each request's token. */
export interface SessionIdentity {
  principal: Principal;
  context: string | undefined;
}

const TEXT_LIMIT = 8000;

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
    private readonly pipeline: RequestPipeline,
  ) {}

  create(identity: SessionIdentity, onListed: (fingerprint: string) => void): Server {
    const server = new Server(
      { name: 'report-tool-gateway', version: '0.1.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      this.pipeline.noteList('mcp');
      const { tools, fingerprint } = await this.list(identity);
      onListed(fingerprint);
      return { tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      try {
        const outcome = await this.pipeline.callTool(
          identity.principal,
          request.params.name,
          request.params.arguments ?? {},
          'mcp',
        );
        return withTraceId(toCallResult(outcome));
      } catch (err) {
        if (err instanceof LimitError)
          return withTraceId({
            isError: true,
            content: [{ type: 'text', text: `${err.message}. Nothing was run.` }],
          });
        if (err instanceof RegistryError && err.code === 'TOOL_NOT_FOUND')
          throw new McpError(ErrorCode.InvalidParams, err.message);
        if (err instanceof RegistryError) throw new McpError(ErrorCode.InternalError, err.message);
        throw new McpError(ErrorCode.InternalError, 'internal error; the call was not completed');
      }
    });
    return server;
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

/** The request's trace id in the result's _meta, for the client's logs and support. */
function withTraceId(result: CallToolResult): CallToolResult {
  const traceId = currentRequest()?.traceId;
  return traceId ? { ...result, _meta: { ...result._meta, trace_id: traceId } } : result;
}

function toCallResult(outcome: ToolCallOutcome): CallToolResult {
  if (outcome.is_error) {
    return { isError: true, content: [{ type: 'text', text: outcome.error.message }] };
  }
  if (outcome.text !== undefined) {
    return { content: [{ type: 'text', text: outcome.text }], structuredContent: outcome.result };
  }
  const { result } = outcome;
  const rows = JSON.stringify(result.rows);
  const summary = `${result.rows.length} row(s), page ${result.page}${result.has_more ? ', more pages available (ask for the next page)' : ', no more pages'}. Columns: ${result.columns.map((c) => c.name).join(', ')}. Rows: ${rows.length > TEXT_LIMIT ? `${rows.slice(0, TEXT_LIMIT)}… (cut; the structured result has every row)` : rows}. ${UNTRUSTED_ROWS_NOTICE}`;
  return { content: [{ type: 'text', text: summary }], structuredContent: { ...result } };
}
