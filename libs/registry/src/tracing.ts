import { context, createContextKey, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';

/**
 * Spans through the OpenTelemetry API only: without an SDK registered (OTLP not configured)
 * they cost a no-op; the gateway's request pipeline makes the request span active, so these
 * become its children. Attributes carry names (tenant, tool, gate), never argument values.
 */
export const tracer = trace.getTracer('report-tool-gateway');

export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      // the error's class only: a message may quote a value
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: err instanceof Error ? err.name : 'error',
      });
      throw err;
    } finally {
      span.end();
    }
  });
}

const TRACE_ID = /^[0-9a-f]{32}$/;

/** The trace id of the request this async chain serves, if any (for SQL and records). */
export function activeTraceId(): string | undefined {
  const id = trace.getSpanContext(context.active())?.traceId;
  return id !== undefined && TRACE_ID.test(id) && id !== '0'.repeat(32) ? id : undefined;
}

/**
 * The abort signal of the call this async chain runs (its client went away: the call is given
 * up), carried in the same async context as the trace, so every path that reaches the executor
 * (REST, MCP, fast lanes, call_tool) passes it on without threading a parameter through each.
 */
const CALL_SIGNAL = createContextKey('gateway.call-signal');

export function withCallSignal<T>(signal: AbortSignal | undefined, fn: () => T): T {
  if (!signal) return fn();
  return context.with(context.active().setValue(CALL_SIGNAL, signal), fn);
}

export function activeCallSignal(): AbortSignal | undefined {
  return context.active().getValue(CALL_SIGNAL) as AbortSignal | undefined;
}
