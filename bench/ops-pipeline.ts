/**
 * `npx tsx bench/ops-pipeline.ts [--json]`: the request pipeline's own CPU per request, with
 * logging, metrics and limits on vs off, both measured in this one process, alternately.
 *
 * No HTTP, no Fastify, no catalog: a simulated warm list request (begin, cachedPrincipal,
 * noteList, the response closes: access log line, histograms, span end) and a simulated
 * call (the same plus callTool: the limits, the `tool.call` span, the call counter) whose
 * tool answers at once. What the ops scenario measures around it (HTTP, the query) is the
 * same on both sides, so this isolates the operability layer's per-request cost, which
 * CPU time (process.cpuUsage) measures even on a loaded machine. **on** = pino at info to
 * /dev/null (the gateway's own logger factory and 64 KB line batches), prom-client recording, user and tenant
 * rates counted in the real Redis (REDIS_URL, default 127.0.0.1:6379) and a concurrency
 * cap; **off** = pino silent, metrics disabled, no limits.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { Metrics } from '@app/registry';
import type { Principal, ToolCallOutcome, ToolCallService } from '@app/registry';
import type { TokenVerifier } from '../apps/gateway/src/auth/token-verifier';
import type { GatewayConfig } from '../apps/gateway/src/config/gateway.config';
import { bytesTo, createLogger, LineBatch } from '../apps/gateway/src/pipeline/record/logger';
import { Limits } from '../apps/gateway/src/pipeline/limits';
import { RequestPipeline } from '../apps/gateway/src/pipeline/request-pipeline';
import { installContextManager } from '../apps/gateway/src/pipeline/record/tracing';

const PRINCIPAL = {
  tenantId: 'acme',
  userId: 'bench-ops',
  roles: ['analyst'],
  claims: {},
} as unknown as Principal;
const OUTCOME = {
  is_error: false,
  rows: [{ region: 'east', total: 1 }],
} as unknown as ToolCallOutcome;
const ROUNDS = 5;

class FakeResponse extends EventEmitter {
  statusCode = 200;
  writableFinished = false;
  private readonly headers: Record<string, unknown> = {};
  setHeader(name: string, value: unknown): void {
    this.headers[name] = value;
  }
  getHeader(name: string): unknown {
    return this.headers[name];
  }
  finish(): void {
    this.headers['content-length'] = '1234';
    this.writableFinished = true;
    this.emit('close');
  }
}

function pipelineFor(on: boolean, redis: Redis): RequestPipeline {
  const metrics = new Metrics();
  if (!on) metrics.disable();
  const log = createLogger(
    { log: { level: on ? 'info' : 'silent', format: 'json' } },
    // what the gateway writes through (logger.ts): 64 KB batches, each one write(2)
    new LineBatch(bytesTo('/dev/null'), 64 * 1024),
  );
  const limits = {
    userCallsPerMin: on ? 100_000_000 : 0,
    tenantCallsPerMin: on ? 100_000_000 : 0,
    tenantConcurrentQueries: on ? 1000 : 0,
    proposalsPerAuthorPerDay: 0,
    bodyBytes: 1 << 20,
  };
  const config = { limits } as unknown as GatewayConfig;
  const verifier = { cached: () => PRINCIPAL } as unknown as TokenVerifier;
  const calls = { call: () => Promise.resolve(OUTCOME) } as unknown as ToolCallService;
  return new RequestPipeline(
    verifier,
    new Limits(config, on ? redis : null, metrics),
    metrics,
    calls,
    log,
  );
}

function request(path: string, method: string): IncomingMessage {
  return { method, url: path, headers: { authorization: 'Bearer x' } } as IncomingMessage;
}

function list(pipeline: RequestPipeline): Promise<void> {
  const response = new FakeResponse();
  pipeline.run(
    request('/v1/tools?format=openai', 'GET'),
    response as unknown as ServerResponse,
    () => {
      pipeline.cachedPrincipal('Bearer x');
      pipeline.noteList('openai', true);
    },
  );
  response.finish();
  return Promise.resolve();
}

function call(pipeline: RequestPipeline): Promise<void> {
  const response = new FakeResponse();
  return new Promise<void>((resolve, reject) => {
    pipeline.run(request('/v1/tools/t/call', 'POST'), response as unknown as ServerResponse, () => {
      const principal = pipeline.cachedPrincipal('Bearer x') ?? PRINCIPAL;
      pipeline
        .callTool(principal, 'query_report_sales_by_region', { region: 'east' }, 'rest')
        .then(() => {
          JSON.stringify(OUTCOME);
          response.finish();
          resolve();
        }, reject);
    });
  });
}

/** CPU µs per request over `n` requests, `concurrency` at a time. */
async function cpuPerRequest(
  pipeline: RequestPipeline,
  one: (p: RequestPipeline) => Promise<void>,
  n: number,
  concurrency: number,
): Promise<number> {
  const start = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next++ < n) await one(pipeline);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  installContextManager();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    keyPrefix: `bench-ops-pipeline-${process.pid}:`,
  });
  const on = pipelineFor(true, redis);
  const off = pipelineFor(false, redis);
  const results: Record<string, { on: number[]; off: number[] }> = {
    list: { on: [], off: [] },
    call: { on: [], off: [] },
  };
  const shapes = { list: { one: list, n: 40_000 }, call: { one: call, n: 8_000 } };
  for (const [name, shape] of Object.entries(shapes)) {
    // warm-up (JIT) on both sides
    await cpuPerRequest(on, shape.one, shape.n, 10);
    await cpuPerRequest(off, shape.one, shape.n, 10);
    for (let round = 0; round < ROUNDS; round++) {
      const sides = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const side of sides)
        results[name][side].push(
          await cpuPerRequest(side === 'on' ? on : off, shape.one, shape.n, 10),
        );
    }
  }
  await redis.quit();
  const rows = Object.entries(results).map(([name, r]) => {
    const a = median(r.on);
    const b = median(r.off);
    return { name, on: a, off: b, extra: a - b, rounds: r };
  });
  if (process.argv.includes('--json')) {
    console.log(
      JSON.stringify(rows.map(({ name, on: a, off: b }) => ({ name, on_us: a, off_us: b }))),
    );
    return;
  }
  console.log('| request | pipeline CPU/req on | off | on - off | rounds on | rounds off |');
  console.log('| --- | ---: | ---: | ---: | --- | --- |');
  const f = (x: number) => x.toFixed(1);
  for (const r of rows)
    console.log(
      `| ${r.name} | ${f(r.on)} µs | ${f(r.off)} µs | ${f(r.extra)} µs | ${r.rounds.on.map(f).join(', ')} | ${r.rounds.off.map(f).join(', ')} |`,
    );
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
