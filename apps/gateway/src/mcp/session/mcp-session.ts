import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { SessionIdentity } from '../shared/mcp-server.factory';
import type { RedisSessionStore } from './mcp-session-store';

export interface McpSession {
  id: string;
  owner: string;
  identity: SessionIdentity;
  transport: StreamableHTTPServerTransport;
  server: Server;
  protocolVersion: string;
  /** fingerprint of the tool list this session last saw */
  fingerprint?: string;
  lastSeen: number;
  /** when this replica last told Redis the session is in use */
  lastTouched: number;
  /** notification (GET) streams open on this replica */
  streams: number;
  pendingCheck?: NodeJS.Timeout;
}

export class SessionOwnerError extends Error {}

/** What the notices of a session need from the sessions this replica holds. */
export interface SessionHost {
  readonly shared: RedisSessionStore | undefined;
  /** whether this replica still holds the session */
  holds(id: string): boolean;
  close(id: string): Promise<void>;
  saveShared(session: McpSession): Promise<void>;
}

export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

export function noop(): void {}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
