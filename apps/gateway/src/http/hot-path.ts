import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { DiscoveryService } from '@nestjs/core';
import { errorBody, httpStatus, INTERNAL_MESSAGE } from '../errors/http-errors';

/** What a hot path sees of a request. */
export interface HotRequest {
  headers: IncomingHttpHeaders;
  /** query parameters; a repeated one is an array */
  query: Record<string, unknown>;
  /** the parsed JSON body (POST paths only) */
  body?: unknown;
  /** route parameters, e.g. `name` of /v1/tools/:name/call (POST paths only) */
  params?: Record<string, string>;
}

/** A complete response: a 200 with its body, or a 304 with none. */
export interface HotAnswer {
  /** default 200; a 304 (not modified) carries no body */
  status?: 200 | 304;
  /**
   * The headers as an object, or as a flat `[name, value, ...]` list that already holds
   * `content-length` (built once and reused for a cached body: no per-request object work).
   */
  headers: Record<string, string> | readonly string[];
  /** the body as UTF-8 bytes, in one or more pieces (sent as one) */
  body: readonly Buffer[];
  /**
   * What to record once the answer is sent (e.g. the list an MCP session has seen): `answer`
   * itself mutates nothing, so an answer that is not sent leaves no trace.
   */
  sent?: () => void;
}

/**
 * A request answered from memory before Nest's pipeline runs. `answer` gives the response
 * only when everything it needs is already in memory and checked; otherwise it returns
 * undefined, and the regular route answers, errors included.
 */
export interface HotPath {
  readonly method: 'GET' | 'POST';
  /** the route as registered, e.g. /v1/tools */
  readonly url: string;
  answer(request: HotRequest): HotAnswer | Promise<HotAnswer> | undefined;
}

/**
 * Marks a provider as a hot path: every provider so marked, in any module, is installed
 * (Nest's multi-provider pattern through DiscoveryService; no hand-written list).
 */
export const AsHotPath = DiscoveryService.createDecorator<void>();

/** The hot paths among the app's providers. */
export function discoverHotPaths(discovery: DiscoveryService): HotPath[] {
  return discovery
    .getProviders({ metadataKey: AsHotPath.KEY })
    .map((wrapper) => wrapper.instance as HotPath)
    .filter((path) => path !== undefined && path !== null);
}

/** A hot path as installed, with its response counter. */
export interface Entry {
  path: HotPath;
  served: () => void;
}

/** The path and the query string of a request URL. */
export function splitUrl(url: string): { pathname: string; search: string | undefined } {
  const mark = url.indexOf('?');
  return mark < 0
    ? { pathname: url, search: undefined }
    : { pathname: url.slice(0, mark), search: url.slice(mark + 1) };
}

/** A fast lane that fails leaves the request to the regular route, which answers or refuses. */
export function tryAnswer(
  path: HotPath,
  request: HotRequest,
): HotAnswer | Promise<HotAnswer> | undefined {
  try {
    return path.answer(request);
  } catch {
    return undefined;
  }
}

/** Sends a hot path's answer and records it; an answer that cannot be written is a plain 500. */
export function sendAnswer(response: ServerResponse, entry: Entry, answer: HotAnswer): void {
  try {
    write(response, answer);
  } catch {
    return writeInternalError(response);
  }
  entry.served();
  answer.sent?.();
}

/**
 * Headers and body in one write; nothing to serialise, rewrite or hook for a cached body. A
 * flat header list (with its content-length) and one piece go out as `writeHead` + `end`; an
 * object gets its content-length added, and several pieces are corked into one writev.
 */
export function write(response: ServerResponse, answer: HotAnswer): void {
  const status = answer.status ?? 200;
  const { body, headers } = answer;
  // everything that can throw before the response is touched, so a failure can fall through
  if (status === 304) {
    response.writeHead(304, headers as Record<string, string>);
    response.end();
    return;
  }
  if (Array.isArray(headers) && body.length === 1) {
    response.writeHead(status, headers as string[]);
    response.end(body[0]);
    return;
  }
  let length = 0;
  for (const piece of body) length += piece.length;
  const withLength = { ...(headers as Record<string, string>), 'content-length': length };
  response.cork();
  response.writeHead(status, withLength);
  for (const piece of body) response.write(piece);
  response.end();
  response.uncork();
}

export function writeInternalError(response: ServerResponse): void {
  const body = JSON.stringify(errorBody('INTERNAL', INTERNAL_MESSAGE));
  if (response.headersSent) return void response.destroy();
  response.writeHead(httpStatus('INTERNAL'), {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
