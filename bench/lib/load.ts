import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import type { CpuPerRequest } from './cpu';
import { percentile } from './stats';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
  /** replace `[<id>]` in the body with a unique id per request (JSON-RPC ids) */
  uniqueIds?: boolean;
}

/** One bounded run. Latencies are kept per response (autocannon's own histogram is whole ms). */
export interface LoadResult {
  /** 2xx responses per second of the run */
  rps: number;
  p50: number;
  p99: number;
  responses: number;
  failures: number;
  /** CPU of the server process per response, when its pid was given */
  cpu?: CpuPerRequest;
}

let sequence = 0;

function withUniqueId(template: string): (r: autocannon.RequestParams) => autocannon.RequestParams {
  const [head, tail] = template.split('[<id>]');
  return (request) => ({ ...request, body: `${head}${++sequence}${tail ?? ''}` });
}

/** Runs autocannon for a fixed duration and connection count; it stops by itself. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const instance = autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    connections: spec.connections,
    duration: spec.durationSec,
    pipelining: 1,
    timeout: 30,
    // autocannon's own idReplacement miscounts Content-Length; set the body per request.
    requests: spec.uniqueIds ? [{ setupRequest: withUniqueId(spec.body ?? '') }] : undefined,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else failures++;
  });
  const result = await instance;
  const elapsedSec = Math.max(result.duration, (performance.now() - started) / 1000);
  failures += result.errors + result.timeouts;
  if (latencies.length === 0)
    throw new Error(`no successful responses from ${spec.method ?? 'GET'} ${spec.url}`);
  return summarize(latencies, elapsedSec, failures);
}

/** A fixed number of concurrent workers calling `task` in a loop for a fixed time. */
export async function runLoop(
  task: () => Promise<void>,
  concurrency: number,
  durationSec: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  let firstError: unknown;
  const started = performance.now();
  const end = started + durationSec * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await task();
        latencies.push(performance.now() - t0);
      } catch (err) {
        failures++;
        firstError ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedSec = (performance.now() - started) / 1000;
  if (latencies.length === 0) throw firstError ?? new Error('no successful iterations');
  return summarize(latencies, elapsedSec, failures);
}

/**
 * Load in short slices until throughput stops climbing (JIT): at least `minSec`, then
 * until two consecutive slices are within 10% of each other, at most `maxSec`. Returns
 * the req/s of each slice, for the record.
 */
export async function warmUntilStable(
  spec: Omit<LoadSpec, 'durationSec'>,
  minSec: number,
  maxSec: number,
): Promise<number[]> {
  const sliceSec = 0.5;
  const rates: number[] = [];
  for (let elapsed = 0; elapsed < maxSec; elapsed += sliceSec) {
    rates.push((await runLoad({ ...spec, durationSec: sliceSec })).rps);
    const n = rates.length;
    if (elapsed + sliceSec >= minSec && n >= 2 && Math.abs(rates[n - 1] / rates[n - 2] - 1) < 0.1)
      break;
  }
  return rates;
}

function summarize(latencies: number[], elapsedSec: number, failures: number): LoadResult {
  return {
    rps: latencies.length / elapsedSec,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    responses: latencies.length,
    failures,
  };
}
