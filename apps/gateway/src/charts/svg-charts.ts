import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Inject, Injectable } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { currentRequest } from '../pipeline/request-context';
import { FairQueue } from './fair-queue';

/**
 * The worker's program: Vega-Lite compiles the spec, Vega draws it with its headless SVG
 * renderer (no browser, no native canvas). Vega may not load anything: the data is inline.
 * Vega and Vega-Lite are ES modules; the worker imports them by file URL.
 * Expressions (tooltips, label formats) are parsed to an AST and walked by `vega-interpreter`,
 * as the MCP Apps View does, never compiled with `Function`; and `Function` itself throws in
 * this worker, so a code path that would compile text is refused instead of run.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const refuse = () => Promise.reject(new Error('charts draw inline data only'));
const noCode = () => { throw new EvalError('the chart worker compiles no code from text'); };
const Guarded = new Proxy(Function, { apply: noCode, construct: noCode });
Object.defineProperty(Function.prototype, 'constructor', { value: Guarded });
globalThis.Function = Guarded;
(async () => {
  const vega = await import(workerData.vega);
  const vl = await import(workerData.vegaLite);
  const { expressionInterpreter } = await import(workerData.interpreter);
  const loader = { load: refuse, sanitize: refuse, http: refuse, file: refuse };
  parentPort.on('message', async ({ spec }) => {
    try {
      const runtime = vega.parse(vl.compile(spec).spec, null, { ast: true });
      const view = new vega.View(runtime, { renderer: 'none', loader, expr: expressionInterpreter });
      const svg = await view.toSVG();
      view.finalize();
      parentPort.postMessage({ svg });
    } catch (err) {
      parentPort.postMessage({ error: String((err && err.message) || err) });
    }
  });
  parentPort.postMessage({ ready: true });
})().catch((err) => parentPort.postMessage({ failed: String((err && err.message) || err) }));
`;

/** Where an ES-module package's entry lives (its package.json exports nothing else). */
function moduleUrl(pkg: string, entry: string): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', pkg, entry);
    if (existsSync(file)) return pathToFileURL(file).href;
    if (path.dirname(dir) === dir) throw new Error(`${pkg} is not installed`);
  }
}

interface Job {
  readonly spec: Record<string, unknown>;
  resolve(svg: string): void;
  reject(err: Error): void;
  timer?: NodeJS.Timeout;
}

/**
 * Draws Vega-Lite specs to SVG off the event loop, in one worker thread started on first use
 * (~0.3 s) and kept. Charts are drawn one at a time, taken in turn between tenants (FairQueue),
 * so a tenant drawing many waits behind its own charts, not another tenant's; a tenant holds at
 * most CHARTS_PER_TENANT charts (waiting and drawing), more are refused at once. A chart not
 * drawn within CHART_TIMEOUT_MS of being asked fails alone: a waiting one leaves the queue, the
 * one drawing has its worker replaced (the others wait for the new one). The rows of the call
 * always go back; only the chart says it could not be drawn.
 */
@Injectable()
export class SvgCharts implements OnModuleDestroy {
  private worker?: Worker;
  private ready?: Promise<Worker>;
  private readonly queue: FairQueue<Job>;
  /** the chart the worker draws now */
  private drawing?: { tenant: string; job: Job };

  constructor(@Inject(gatewayConfig.KEY) private readonly config: GatewayConfig) {
    this.queue = new FairQueue<Job>(config.charts.perTenant);
  }

  /** The spec drawn as SVG, for the tenant of the request being served. */
  render(spec: Record<string, unknown>): Promise<string> {
    const tenant = currentRequest()?.principal?.tenantId ?? '';
    const { perTenant, timeoutMs } = this.config.charts;
    return new Promise<string>((resolve, reject) => {
      const job: Job = { spec, resolve, reject };
      if (!this.queue.push(tenant, job))
        return reject(
          new Error(
            `your organisation has ${perTenant} charts being drawn (CHARTS_PER_TENANT); ask again when they are done`,
          ),
        );
      job.timer = setTimeout(() => this.expire(tenant, job), timeoutMs);
      this.pump();
    });
  }

  onModuleDestroy(): void {
    const err = new Error('shutting down');
    for (let next = this.queue.next(); next; next = this.queue.next()) this.fail(next, err);
    if (this.drawing) this.fail(this.drawing, err);
    this.drawing = undefined;
    this.stopWorker();
  }

  /** Sends the next chart in turn to the worker, when it draws none. */
  private pump(): void {
    if (this.drawing) return;
    const next = this.queue.next();
    if (!next) return;
    this.drawing = next;
    this.start().then(
      (worker) => {
        if (this.drawing === next) worker.postMessage({ spec: next.job.spec });
      },
      (err: Error) => this.finished(next, err),
    );
  }

  /** The chart drawing now is over (an SVG or an error); the next one goes. */
  private finished(which: { tenant: string; job: Job }, outcome: string | Error): void {
    if (this.drawing !== which) return;
    this.drawing = undefined;
    if (typeof outcome === 'string') {
      clearTimeout(which.job.timer);
      this.queue.done(which.tenant);
      which.job.resolve(outcome);
    } else this.fail(which, outcome);
    this.pump();
  }

  private fail({ tenant, job }: { tenant: string; job: Job }, err: Error): void {
    clearTimeout(job.timer);
    this.queue.done(tenant);
    job.reject(err);
  }

  /** A chart's time is up: it leaves the queue, or its drawing worker is replaced. */
  private expire(tenant: string, job: Job): void {
    const late = new Error(
      `the chart could not be drawn within ${this.config.charts.timeoutMs / 1000} s (CHART_TIMEOUT_MS)`,
    );
    if (this.queue.remove(tenant, job)) return job.reject(late);
    if (this.drawing?.job !== job) return;
    this.stopWorker();
    this.finished(this.drawing, late);
  }

  private start(): Promise<Worker> {
    this.ready ??= new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          vega: moduleUrl('vega', 'build/vega.module.js'),
          vegaLite: moduleUrl('vega-lite', 'build/index.js'),
          interpreter: moduleUrl('vega-interpreter', 'build/vega-interpreter.js'),
        },
        resourceLimits: { maxOldGenerationSizeMb: 256 },
      });
      worker.unref();
      this.worker = worker;
      const lost = (err: Error) => {
        // an old worker's last events (after a timeout replaced it) concern nobody any more
        if (this.worker !== worker) return;
        this.stopWorker();
        reject(err);
        if (this.drawing) this.finished(this.drawing, err);
      };
      worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message) return void resolve(worker);
        if ('failed' in message) return lost(new Error(message.failed));
        if (this.worker !== worker || !this.drawing) return;
        this.finished(this.drawing, 'svg' in message ? message.svg : new Error(message.error));
      });
      worker.on('error', lost);
      worker.on('exit', () => lost(new Error('the chart worker stopped')));
    });
    return this.ready;
  }

  /** Ends the worker; the next chart starts a new one. */
  private stopWorker(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    void worker?.terminate();
  }
}

type WorkerMessage = { ready: true } | { failed: string } | { svg: string } | { error: string };
