import { trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';

const SALES = 'query_report_sales_by_region';
const ARGUMENT = 'north';

/**
 * With an SDK registered (here an in-memory exporter; OTLP in production), one tool call
 * yields one trace: the request span, auth, the call and its SQL, named by tenant and tool
 * and never carrying an argument value.
 */
describe('OpenTelemetry spans of one call (e2e)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let gw: RunningGateway;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.close();
    await provider.shutdown();
  });

  it('records request -> auth, tool.call -> sql with tenant and tool, and no argument values', async () => {
    exporter.reset();
    const res = await gw.request(`/v1/tools/${SALES}/call`, {
      method: 'POST',
      as: { tenant: 'acme', user: 'tracy', roles: ['analyst'] },
      json: { arguments: { region: ARGUMENT } },
    });
    expect(res.status).toBe(200);
    const traceId = res.headers.get('x-trace-id');
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const byName = (name: string): ReadableSpan => {
      const span = spans.find((s) => s.name === name);
      if (!span) throw new Error(`no span ${name} in ${spans.map((s) => s.name).join(', ')}`);
      return span;
    };
    const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
    const root = byName('POST /v1/tools/:name/call');
    const auth = byName('auth');
    const call = byName('tool.call');
    const sqlSpan = byName('sql');
    expect(parentOf(root)).toBeUndefined();
    expect(parentOf(auth)).toBe(root.spanContext().spanId);
    expect(parentOf(call)).toBe(root.spanContext().spanId);
    expect(parentOf(sqlSpan)).toBe(call.spanContext().spanId);
    expect(root.attributes).toMatchObject({
      'http.route': '/v1/tools/:name/call',
      'http.response.status_code': 200,
      'gateway.tenant': 'acme',
      'gateway.tool': SALES,
      'gateway.outcome': 'ok',
    });
    expect(call.attributes).toEqual({
      'gateway.tenant': 'acme',
      'gateway.tool': SALES,
      'gateway.protocol': 'rest',
    });
    expect(sqlSpan.attributes).toMatchObject({
      'db.system': 'postgresql',
      'gateway.tenant': 'acme',
    });
    const everything = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events]));
    expect(everything).not.toContain(ARGUMENT);
  });

  it('continues the trace of an incoming W3C traceparent', async () => {
    exporter.reset();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await gw.request('/v1/tools', {
      as: { tenant: 'acme', user: 'tracy', roles: ['analyst'] },
      headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    });
    expect(res.headers.get('x-trace-id')).toBe(traceId);
    const root = exporter.getFinishedSpans().find((s) => s.name === 'GET /v1/tools');
    expect(root?.spanContext().traceId).toBe(traceId);
    expect(root?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
  });
});
