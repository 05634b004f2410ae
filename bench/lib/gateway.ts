import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Cleanup } from './cleanup';
import { HttpClient } from './http';
import { freePort } from './ports';
import {
  DB_POOL_SIZE,
  GATEWAY_MAIN,
  JWT_SECRET,
  pgUrl,
  REDIS_URL,
  ROOT,
  RUN_ID,
  RUN_TMP,
} from './settings';

export interface GatewayOptions {
  name: string;
  database: string;
  /** REDIS_KEY_PREFIX; instances sharing it share L2 */
  redisPrefix: string;
  /** with the V8 CPU profiler on stdin commands (see profilerBoot); written on stop */
  profile?: boolean;
  env?: Record<string, string>;
  /** another build's main.js (A/B of two commits in one run); default: this tree's dist */
  main?: string;
  /** 'ignore': the child's stdout goes to /dev/null instead of a pipe drained here */
  stdout?: 'pipe' | 'ignore';
}

/** Keeps the last bytes a child wrote, for error messages; the pipe is always drained. */
class Tail {
  private text = '';
  /** whether the profiler's start line came by: a 64 KB batch of access lines right after it
   * would push it out of the kept end before anyone looks */
  profilerStarted = false;
  push(chunk: Buffer): void {
    if (!this.profilerStarted)
      this.profilerStarted = (this.text.slice(-100) + chunk.toString()).includes(PROFILER_STARTED);
    // only the end of a chunk can be kept: a logging gateway sends megabytes per second
    this.text = (this.text + chunk.subarray(-8000).toString()).slice(-8000);
  }
  toString(): string {
    return this.text;
  }
}

/** The built gateway (dist/apps/gateway/src/main.js) as a child process on loopback. */
export class GatewayProcess {
  readonly client: HttpClient;
  private exited = false;
  private profiling = false;
  private readonly exitPromise: Promise<void>;

  private constructor(
    readonly name: string,
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly tail: Tail,
    private readonly profileFile: string | undefined,
    private readonly forget: () => Promise<void>,
  ) {
    this.client = new HttpClient(url);
    this.exitPromise = new Promise((resolve) =>
      child.once('exit', () => {
        this.exited = true;
        resolve();
      }),
    );
  }

  static async start(cleanup: Cleanup, options: GatewayOptions): Promise<GatewayProcess> {
    const port = await freePort();
    cleanup.ensureOpen();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: pgUrl(options.database),
      REDIS_URL,
      REDIS_KEY_PREFIX: options.redisPrefix,
      AUTH_JWT_SECRET: JWT_SECRET,
      DB_POOL_SIZE: String(DB_POOL_SIZE),
      // Nothing of the bench lands in the project's .data (generated tools must live inside
      // the project, so their imports resolve to its node_modules): bench/.tmp/<run>/.
      DATA_DIR: path.join(RUN_TMP, `${options.name}-data`),
      GENERATED_TOOLS_DIR: path.join(RUN_TMP, `${options.name}-tools`),
      ...options.env,
    };
    let args = [options.main ?? GATEWAY_MAIN];
    let profileFile: string | undefined;
    if (options.profile) {
      // Kept for DevTools (bench/profiles/ is git-ignored).
      const dir = path.join(ROOT, 'bench/profiles');
      mkdirSync(dir, { recursive: true });
      profileFile = path.join(dir, `${RUN_ID}-${options.name}.cpuprofile`);
      args = ['-e', profilerBoot(profileFile)];
    }
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env,
      stdio: [options.profile ? 'pipe' : 'ignore', options.stdout ?? 'pipe', 'pipe'],
    });
    const tail = new Tail();
    child.stdout?.on('data', (d: Buffer) => tail.push(d));
    child.stderr?.on('data', (d: Buffer) => tail.push(d));
    // Last resort if the bench itself dies without running its cleanup.
    const killOnExit = () => child.kill('SIGKILL');
    process.on('exit', killOnExit);
    const created: { gateway?: GatewayProcess } = {};
    const forget = cleanup.add(`stop gateway ${options.name} (pid ${child.pid})`, async () => {
      process.off('exit', killOnExit);
      if (created.gateway) await created.gateway.terminate();
      else child.kill('SIGKILL');
    });
    const gateway = new GatewayProcess(
      options.name,
      `http://127.0.0.1:${port}`,
      child,
      tail,
      profileFile,
      forget,
    );
    created.gateway = gateway;
    try {
      await gateway.waitReady();
    } catch (err) {
      await forget();
      throw err;
    }
    return gateway;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  // generous: on a loaded 2-core machine a cold start (JIT, WASM SQL parser) can take 30 s+
  private async waitReady(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) throw new Error(`gateway ${this.name} exited during start:\n${this.tail}`);
      try {
        const res = await this.client.request('/readyz');
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`gateway ${this.name} not ready after ${timeoutMs} ms:\n${this.tail}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Resident set size from /proc/<pid>/status, in kB. */
  rssKb(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (!match) throw new Error(`no VmRSS for pid ${this.pid}`);
    return Number(match[1]);
  }

  /** exit code or signal once the process has exited, else null */
  exitCode(): string | null {
    if (!this.exited) return null;
    return String(this.child.exitCode ?? this.child.signalCode);
  }

  output(): string {
    return this.tail.toString();
  }

  /** Starts the V8 CPU profiler in a gateway started with `profile: true`. */
  async startProfiling(): Promise<void> {
    if (!this.profileFile) throw new Error(`gateway ${this.name} was not started for profiling`);
    if (this.profiling) return;
    this.profiling = true;
    this.child.stdin?.write('start\n');
    const deadline = Date.now() + 10_000;
    while (!this.tail.profilerStarted) {
      if (Date.now() > deadline || this.exited)
        throw new Error(`the profiler did not start:\n${this.tail}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Stops the process (and the cleanup entry). Returns the .cpuprofile path when profiled. */
  async stop(): Promise<string | undefined> {
    await this.forget();
    return this.profileFile && existsSync(this.profileFile) ? this.profileFile : undefined;
  }

  private async terminate(): Promise<void> {
    this.client.close();
    if (this.exited) return;
    if (this.profileFile) {
      // "stop" stops the profiler, writes the file and exits.
      if (!this.profiling) await this.startProfiling().catch(() => undefined);
      this.child.stdin?.write('stop\n');
    } else {
      this.child.kill('SIGTERM');
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exitPromise;
    clearTimeout(timer);
  }
}

const PROFILER_STARTED = 'bench: cpu profiler started';

/**
 * Boot script of a profiled gateway: the same main.js, plus the V8 CPU profiler (what
 * `node --cpu-prof` uses) driven over stdin (signals are taken: Nest's shutdown hooks
 * listen to SIGUSR2 too): "start" after warm-up, so only the measured workload is
 * sampled; "stop" writes the .cpuprofile and exits.
 */
function profilerBoot(file: string): string {
  return `
const inspector = require('node:inspector');
const fs = require('node:fs');
const session = new inspector.Session();
session.connect();
process.stdin.setEncoding('utf8');
process.stdin.on('data', (command) => {
  if (command.includes('start')) {
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: 1000 }, () =>
        session.post('Profiler.start', () => process.stdout.write(${JSON.stringify(PROFILER_STARTED)} + '\\n'))));
  }
  if (command.includes('stop')) {
    session.post('Profiler.stop', (err, result) => {
      if (!err) fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify(result.profile));
      process.exit(0);
    });
  }
});
require(${JSON.stringify(GATEWAY_MAIN)});
`;
}
