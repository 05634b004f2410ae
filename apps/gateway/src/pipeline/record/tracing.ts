import { randomFillSync } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  defaultTextMapGetter,
  INVALID_SPANID,
  INVALID_TRACEID,
  ROOT_CONTEXT,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import type { Context, Span, SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { tracer } from '@app/registry';
import type { GatewaySettings } from '../../config/gateway.config';

const propagator = new W3CTraceContextPropagator();
let contextManager: AsyncLocalStorageContextManager | undefined;

/**
 * The async context OpenTelemetry uses to find the active span (also what gives SQL its
 * trace id), installed once per process whether or not spans are exported.
 */
export function installContextManager(): void {
  if (contextManager) return;
  contextManager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(contextManager)) {
    // another one (an SDK registered first) is in place; it works the same way
    contextManager.disable();
  }
}

/**
 * Exports spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; otherwise no SDK is
 * registered and every span is a no-op (the trace id is still made and propagated).
 */
export function startTracing(settings: GatewaySettings): NodeTracerProvider | undefined {
  installContextManager();
  const endpoint = settings.tracing.otlpEndpoint;
  if (!endpoint) return undefined;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.tracing.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
      ),
    ],
  });
  provider.register();
  return provider;
}

export interface RequestSpan {
  traceId: string;
  span: Span;
  otel: Context;
}

/**
 * The request's server span, child of an incoming W3C `traceparent` when there is one.
 * Without an SDK the span is non-recording but still carries a trace id (the caller's, or
 * a new random one), so logs, headers and SQL always have one.
 */
export function startRequestSpan(method: string, headers: IncomingHttpHeaders): RequestSpan {
  const parent =
    headers.traceparent === undefined
      ? ROOT_CONTEXT
      : propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  let span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
  let sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) {
    sc = newSpanContext();
    span = trace.wrapSpanContext(sc);
  }
  return { traceId: sc.traceId, span, otel: trace.setSpan(parent, span) };
}

/** 256 ids' worth of random bytes, refilled in one call when used up. */
const POOL = Buffer.alloc(24 * 256);
let offset = POOL.length;

/**
 * A new trace id (16 random bytes) and span id (8), both from one pooled draw: one
 * randomFillSync per 256 requests and two hex conversions, instead of a random UUID (and
 * a regular-expression replace) for each id.
 */
function newSpanContext(): SpanContext {
  if (offset === POOL.length) {
    randomFillSync(POOL);
    offset = 0;
  }
  const traceId = POOL.toString('hex', offset, offset + 16);
  const spanId = POOL.toString('hex', offset + 16, offset + 24);
  offset += 24;
  // all zeros is the invalid id: vanishingly unlikely, but never sent
  return traceId === INVALID_TRACEID || spanId === INVALID_SPANID
    ? newSpanContext()
    : { traceId, spanId, traceFlags: 0 };
}
