import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { context, defaultTextMapGetter, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { tracer } from '@app/registry';
import type { GatewaySettings } from '../config/gateway.config';

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
  let span = tracer.startSpan(`${method}`, { kind: SpanKind.SERVER }, parent);
  let sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) {
    sc = { traceId: randomHex(32), spanId: randomHex(16), traceFlags: 0 };
    span = trace.wrapSpanContext(sc);
  }
  return { traceId: sc.traceId, span, otel: trace.setSpan(parent, span) };
}

function randomHex(length: 32 | 16): string {
  // randomUUID draws from a cached entropy pool: cheaper than randomBytes per request
  const hex = randomUUID().replace(/-/g, '');
  return length === 32 ? hex : hex.slice(0, 16);
}
