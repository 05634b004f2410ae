import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '@app/registry';
import type { Context, Span } from '@opentelemetry/api';

/** What the pipeline knows about one HTTP request, from `begin` to `end`. */
export interface RequestContext {
  /** the 32-hex W3C trace id, also sent as x-trace-id */
  readonly traceId: string;
  /** the request's server span (non-recording when tracing is off) */
  readonly span: Span;
  /** the OpenTelemetry context with `span` active, for child spans */
  readonly otel: Context;
  readonly method: string;
  /** performance.now() at begin */
  readonly startedAt: number;
  /** the route as registered (e.g. /v1/tools/:name/call); 'unmatched' until routed */
  route: string;
  principal?: Principal;
  /** what the request did, for the access log and the latency histograms */
  kind?: 'list' | 'call';
  /** list format (openai, anthropic, mcp) */
  format?: string;
  tool?: string;
  /** the coded outcome: ok, a tool error code, a domain error code or HTTP_<status> */
  outcome?: string;
  /** answered by a fast lane (from memory, before Fastify) */
  fastLane?: boolean;
  /** a limit refusal a fast lane met; the route it falls through to answers it, uncounted */
  refusal?: Error;
  /** long-lived (an MCP notification stream): not waited for at shutdown */
  stream?: boolean;
}

const scope = new AsyncLocalStorage<RequestContext>();

/** The request being served by the current async chain, if any. */
export function currentRequest(): RequestContext | undefined {
  return scope.getStore();
}

/** Runs `fn` (and everything it starts) as part of `ctx`. */
export function runInRequest<T>(ctx: RequestContext, fn: () => T): T {
  return scope.run(ctx, fn);
}
