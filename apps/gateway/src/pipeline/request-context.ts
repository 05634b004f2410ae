import type { Principal } from '@app/registry';
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { installContextManager } from './record/tracing';

/** What the pipeline knows about one HTTP request, from `begin` to `end`. */
export interface RequestContext {
  /** the 32-hex W3C trace id, also sent as x-trace-id */
  readonly traceId: string;
  /** the request's server span (non-recording when tracing is off) */
  readonly span: Span;
  /**
   * the OpenTelemetry context with `span` active, for child spans; it also carries this
   * request context (`withRequest`), so one async context holds both
   */
  otel: Context;
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
  /**
   * the caller asked for fresh rows (REST `Cache-Control: no-cache`, MCP
   * `_meta["gateway/cache"]: "no-cache"`): a cached report runs its SQL and stores the answer
   */
  noCache?: boolean;
  /** aborted when the client goes away before its response is complete (made on first use) */
  abort?: AbortController;
}

/** The signal that the request's client went away (`end` aborts it; see RequestPipeline). */
export function requestSignal(ctx: RequestContext): AbortSignal {
  ctx.abort ??= new AbortController();
  return ctx.abort.signal;
}

/**
 * The request context lives in OpenTelemetry's async context, under this key: one
 * AsyncLocalStorage per process instead of two (on Node 20 every async resource a request
 * creates copies the store of each one, so a second one costs on every hop).
 */
const REQUEST = createContextKey('gateway.request');

/** `otel` with `ctx` in it: what `begin` stores as `ctx.otel`, so a request enters one context. */
export function withRequest(otel: Context, ctx: RequestContext): Context {
  return otel.setValue(REQUEST, ctx);
}

/** The request being served by the current async chain, if any. */
export function currentRequest(): RequestContext | undefined {
  return context.active().getValue(REQUEST) as RequestContext | undefined;
}

/** Runs `fn` (and everything it starts) as part of `ctx`, with its span active. */
export function runInRequest<T>(ctx: RequestContext, fn: () => T): T {
  installContextManager();
  const otel: Context | undefined = ctx.otel;
  const entered =
    otel !== undefined && otel.getValue(REQUEST) === ctx
      ? otel
      : withRequest(otel ?? ROOT_CONTEXT, ctx);
  return context.with(entered, fn);
}
