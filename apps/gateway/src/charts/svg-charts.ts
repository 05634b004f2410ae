import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Injectable } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';

/** How long one chart may take to draw before its worker is replaced. */
const RENDER_TIMEOUT_MS = 5000;
/** Charts waiting at once; more are refused at once (the call's rows still go back). */
const MAX_PENDING = 16;

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
  parentPort.on('message', async ({ id, spec }) => {
    try {
      const runtime = vega.parse(vl.compile(spec).spec, null, { ast: true });
      const view = new vega.View(runtime, { renderer: 'none', loader, expr: expressionInterpreter });
      const svg = await view.toSVG();
      view.finalize();
      parentPort.postMessage({ id, svg });
    } catch (err) {
      parentPort.postMessage({ id, error: String((err && err.message) || err) });
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

interface Pending {
  resolve(svg: string): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Draws Vega-Lite specs to SVG off the event loop, in one worker thread started on first use
 * (~0.3 s) and kept. A chart that takes too long, or a worker that dies, fails only the
 * charts waiting on it; the next chart gets a new worker.
 */
@Injectable()
export class SvgCharts implements OnModuleDestroy {
  private worker?: Worker;
  private ready?: Promise<Worker>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  async render(spec: Record<string, unknown>): Promise<string> {
    if (this.pending.size >= MAX_PENDING)
      throw new Error('too many charts are being drawn right now; ask again');
    const worker = await this.start();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stop(new Error(`the chart took longer than ${RENDER_TIMEOUT_MS / 1000} s to draw`));
      }, RENDER_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, spec });
    });
  }

  onModuleDestroy(): void {
    this.stop(new Error('shutting down'));
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
      worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message) return void resolve(worker);
        if ('failed' in message) return void this.stop(new Error(message.failed), reject);
        const waiting = this.pending.get(message.id);
        if (!waiting) return;
        this.pending.delete(message.id);
        clearTimeout(waiting.timer);
        if ('svg' in message) waiting.resolve(message.svg);
        else waiting.reject(new Error(message.error));
      });
      // an old worker's last events (after a timeout replaced it) concern nobody any more
      worker.on('error', (err) => this.worker === worker && this.stop(err, reject));
      worker.on(
        'exit',
        () => this.worker === worker && this.stop(new Error('the chart worker stopped'), reject),
      );
    });
    return this.ready;
  }

  /** Fails every chart waiting, and lets the next one start a new worker. */
  private stop(err: Error, rejectStart?: (err: Error) => void): void {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    rejectStart?.(err);
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(err);
      this.pending.delete(id);
    }
    void worker?.terminate();
  }
}

type WorkerMessage =
  | { ready: true }
  | { failed: string }
  | { id: number; svg: string }
  | { id: number; error: string };
