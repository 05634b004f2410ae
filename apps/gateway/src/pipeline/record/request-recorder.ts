import type { ServerResponse } from 'node:http';
import type { Metrics } from '@app/registry';
import { SpanStatusCode } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { writeAccessLine } from './access-line';
import type { RequestContext } from '../request-context';
import { SeriesCache, statusClass } from './series';

export type Protocol = 'rest' | 'mcp';

const LABELS: Record<string, string[]> = {
  gateway_http_request_duration_seconds: ['method', 'route', 'status_class'],
  gateway_list_duration_seconds: ['protocol', 'format', 'outcome'],
  gateway_call_duration_seconds: ['protocol', 'outcome'],
};

/**
 * What the pipeline records of every request when its response closes: the latency
 * histograms, the access log line and the end of the request span; and the tool call
 * counters. One instance per pipeline; label sets are memoised (no allocation per request
 * once a route/outcome pair has been seen).
 */
export class RequestRecorder {
  private readonly observers = new Map<string, SeriesCache<(seconds: number) => void>>();
  private readonly callCounters = new Map<string, () => void>();

  constructor(
    private readonly metrics: Metrics,
    private readonly log: Logger,
  ) {
    metrics.describe(
      'gateway_http_request_duration_seconds',
      'HTTP requests, by method, route and status class',
    );
    metrics.describe(
      'gateway_list_duration_seconds',
      'tool list requests, by protocol, format and outcome',
    );
    metrics.describe(
      'gateway_call_duration_seconds',
      'tool call requests, by protocol and outcome',
    );
    metrics.describe('gateway_tool_calls_total', 'tool calls, by protocol and outcome code');
  }

  /** The access log line, the histograms and the end of the span. */
  record(ctx: RequestContext, response: ServerResponse): void {
    const seconds = (performance.now() - ctx.startedAt) / 1000;
    const status = response.writableFinished ? response.statusCode : 499;
    const outcome = ctx.outcome ?? (status < 400 ? 'ok' : `HTTP_${status}`);
    this.observeAll(ctx, seconds, status, outcome);
    if (this.log.isLevelEnabled('info')) this.logLine(ctx, response, seconds, status, outcome);
    endSpan(ctx, status, outcome);
  }

  countCall(protocol: Protocol, code: string): void {
    const key = `${protocol}|${code}`;
    let count = this.callCounters.get(key);
    if (!count) {
      count = this.metrics.counter('gateway_tool_calls_total', { protocol, code });
      this.callCounters.set(key, count);
    }
    count();
  }

  private observeAll(ctx: RequestContext, seconds: number, status: number, outcome: string) {
    const protocol = ctx.route === '/mcp' ? 'mcp' : 'rest';
    this.observe('gateway_http_request_duration_seconds', seconds, [
      ctx.method,
      ctx.route,
      statusClass(status),
    ]);
    if (ctx.kind === 'list')
      this.observe('gateway_list_duration_seconds', seconds, [
        protocol,
        ctx.format ?? 'unknown',
        outcome,
      ]);
    else if (ctx.kind === 'call')
      this.observe('gateway_call_duration_seconds', seconds, [protocol, outcome]);
  }

  private logLine(
    ctx: RequestContext,
    response: ServerResponse,
    seconds: number,
    status: number,
    outcome: string,
  ): void {
    const length = response.getHeader('content-length');
    writeAccessLine(this.log, {
      trace_id: ctx.traceId,
      method: ctx.method,
      route: ctx.route,
      status,
      tenant: ctx.principal?.tenantId,
      user: ctx.principal?.userId,
      tool: ctx.tool,
      kind: ctx.kind,
      format: ctx.format,
      outcome,
      duration_ms: Math.round(seconds * 10_000) / 10,
      bytes: length === undefined ? undefined : Number(length),
      fast_lane: ctx.fastLane,
    });
  }

  private observe(name: string, seconds: number, values: string[]): void {
    let series = this.observers.get(name);
    if (!series) {
      series = new SeriesCache((v) => this.metrics.histogram(name, labelsOf(name, v)));
      this.observers.set(name, series);
    }
    series.get(values)(seconds);
  }
}

function labelsOf(name: string, values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  LABELS[name].forEach((label, i) => (labels[label] = values[i]));
  return labels;
}

function endSpan(ctx: RequestContext, status: number, outcome: string): void {
  const { span } = ctx;
  if (!span.isRecording()) return;
  span.updateName(`${ctx.method} ${ctx.route}`);
  span.setAttributes({
    'http.request.method': ctx.method,
    'http.route': ctx.route,
    'http.response.status_code': status,
    ...(ctx.principal ? { 'gateway.tenant': ctx.principal.tenantId } : {}),
    ...(ctx.tool ? { 'gateway.tool': ctx.tool } : {}),
    'gateway.outcome': outcome,
  });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
