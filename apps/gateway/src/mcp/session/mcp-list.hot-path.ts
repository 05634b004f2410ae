import { Injectable } from '@nestjs/common';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { RequestPipeline } from '../../pipeline/request-pipeline';
import { AsHotPath } from '../../http/hot-path';
import type { HotAnswer, HotPath, HotRequest } from '../../http/hot-path';
import { McpServerFactory } from '../shared/mcp-server.factory';
import { toolsListFrame } from '../shared/mcp-list-frame';
import { McpSessions, ownerOf } from './mcp-sessions.service';
import type { McpSession } from './mcp-session';
import type { Principal } from '@app/registry';

/**
 * POST /mcp `tools/list` in an open session, answered with the session's cached list
 * without the SDK transport (request conversion, schema validation, re-serialising the
 * list): what an agent loop asks before every turn. It answers only a plain request the
 * transport would accept as is (one JSON-RPC request, no params, no Origin header, both
 * Accept types, a JSON body, a supported protocol version) from the session's owner, with
 * the list already in memory; the response is byte for byte the SDK's. Anything else goes
 * to McpController and the SDK, which answers it or refuses it.
 */
@AsHotPath()
@Injectable()
export class McpListHotPath implements HotPath {
  readonly method = 'POST';
  readonly url = '/mcp';

  constructor(
    private readonly pipeline: RequestPipeline,
    private readonly sessions: McpSessions,
    private readonly servers: McpServerFactory,
  ) {}

  answer(request: HotRequest): HotAnswer | undefined {
    const id = plainToolsListId(request.body);
    if (id === undefined) return undefined;
    const held = plainSessionRequest(request, this.pipeline, this.sessions);
    if (!held) return undefined;
    const { principal, session, sessionId } = held;
    const listed = this.servers.cachedList({ ...session.identity, principal });
    if (!listed) return undefined;
    this.pipeline.noteList('mcp', true);
    return {
      headers: { 'content-type': 'application/json', 'mcp-session-id': sessionId },
      body: toolsListFrame(listed, id),
      // the session's list_changed baseline moves only once the list is sent
      sent: () => this.sessions.listed(session, listed.fingerprint),
    };
  }
}

/**
 * The caller and session of a POST /mcp the SDK transport would accept as is: a session id
 * this replica holds, owned by the caller of a token this instance verified, no Origin
 * header, both Accept types, a JSON body, a supported protocol version. Else undefined.
 */
export function plainSessionRequest(
  request: HotRequest,
  pipeline: RequestPipeline,
  sessions: McpSessions,
): { principal: Principal; session: McpSession; sessionId: string } | undefined {
  const { headers } = request;
  const sessionId = headers['mcp-session-id'];
  if (typeof sessionId !== 'string' || headers.origin !== undefined) return undefined;
  if (!acceptsJsonAndEvents(headers.accept) || !isJson(headers['content-type'])) return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
    return undefined;
  const principal = pipeline.cachedPrincipal(headers.authorization);
  const session = principal && sessions.get(sessionId);
  if (!principal || !session || session.owner !== ownerOf(principal)) return undefined;
  return { principal, session, sessionId };
}

function acceptsJsonAndEvents(accept: string | undefined): boolean {
  return !!accept && accept.includes('application/json') && accept.includes('text/event-stream');
}

function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(';');
  const type = semicolon < 0 ? contentType : contentType.slice(0, semicolon);
  return type.trim().toLowerCase() === 'application/json';
}

/** The id of a JSON-RPC tools/list request without params, else undefined. */
function plainToolsListId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { jsonrpc, method, id, params, ...rest } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0' || method !== 'tools/list' || Object.keys(rest).length > 0)
    return undefined;
  if (params !== undefined && (typeof params !== 'object' || params === null)) return undefined;
  if (Array.isArray(params)) return undefined;
  if (params && Object.keys(params).length > 0) return undefined;
  return typeof id === 'string' || Number.isInteger(id) ? (id as string | number) : undefined;
}
