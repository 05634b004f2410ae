import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * N gateway replicas behind HAProxy on this machine: what `npm run cluster` runs, and what
 * the failover test and the soak drive. Replicas are the built gateway
 * (dist/apps/gateway/src/main.js) as child processes; HAProxy uses the one config file
 * shared with docker-compose.yml (deploy/haproxy/haproxy.cfg).
 */
export const ROOT = path.resolve(__dirname, '../..');
export const HAPROXY_CONFIG = path.join(ROOT, 'deploy/haproxy/haproxy.cfg');
export const MAX_REPLICAS = 8;

export const HAPROXY_MISSING =
  "HAProxy is not installed: install Debian's package with `sudo apt-get install -y haproxy` (or your distribution's haproxy 2.4 or newer), then run this again";

export function haproxyPath(): string | undefined {
  for (const candidate of ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy']) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    return (
      execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** Builds dist/ when it is missing or older than the sources (as `npm start` does). */
export function buildIfNeeded(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ClusterOptions {
  replicas: number;
  /** where HAProxy listens; 0 picks a free port */
  port: number;
  /** environment of every replica, on top of this process's */
  env?: Record<string, string>;
  /** environment of one replica by name (gw1, gw2, ...), on top of `env` (experiments) */
  replicaEnv?: Record<string, Record<string, string>>;
  /** restart a replica that exits or stops answering /healthz (npm run cluster, the soak) */
  supervise?: boolean;
  /** where replica and HAProxy output goes (default: this process's stderr, prefixed) */
  log?: (line: string) => void;
}

export interface Replica {
  readonly name: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** sends a signal (the supervisor, if on, starts a replica that died again) */
  kill(signal: NodeJS.Signals): void;
  /** starts it again after it died (without the supervisor) */
  start(): Promise<void>;
  /** resolves when the process has exited */
  exited(): Promise<void>;
}

export interface Cluster {
  url: string;
  statsUrl: string;
  replicas: Replica[];
  /** names of the replicas HAProxy currently routes to */
  upReplicas(): Promise<string[]>;
  stop(): Promise<void>;
}

async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  alive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (!alive()) throw new Error(`${what}: the process exited`);
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function answers(url: string, timeoutMs = 1000): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  await res.arrayBuffer();
  return res.ok;
}

class ReplicaProcess implements Replica {
  child?: ChildProcess;
  stopping = false;
  restarting = false;
  private failures = 0;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string | undefined>,
    private readonly log: (line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/apps/gateway/src/main.js')], {
      cwd: ROOT,
      env: { ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: Ctrl-C reaches the cluster, which stops it
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream?.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) this.log(`[${this.name}] ${line}`);
      });
    }
    await waitFor(
      `${this.name} on port ${this.port}`,
      () => answers(`http://127.0.0.1:${this.port}/healthz`),
      60_000,
      () => this.running,
    );
    this.failures = 0;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child?.kill(signal);
  }

  exited(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return Promise.resolve();
    return new Promise((resolve) => child.once('exit', () => resolve()));
  }

  private probing = false;

  /**
   * Liveness: /healthz unanswered (3 s each) five times in a row and the replica is killed,
   * then started again. Generous on purpose: a busy replica is slow, not dead.
   */
  async probe(): Promise<void> {
    if (!this.running || this.probing) return;
    this.probing = true;
    try {
      const ok = await answers(`http://127.0.0.1:${this.port}/healthz`, 3000).catch(() => false);
      this.failures = ok ? 0 : this.failures + 1;
      if (this.failures >= 5) {
        this.failures = 0;
        this.log(`[cluster] ${this.name} failed /healthz 5 times in a row: killing it`);
        this.kill('SIGKILL');
      }
    } finally {
      this.probing = false;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.running) return;
    const done = this.exited();
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), 10_000);
    await done;
    clearTimeout(timer);
  }
}

/** Starts the replicas, then HAProxy in front; resolves when HAProxy routes to all. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const haproxy = haproxyPath();
  if (!haproxy) throw new Error(HAPROXY_MISSING);
  if (options.replicas < 1 || options.replicas > MAX_REPLICAS) {
    throw new Error(`--replicas must be between 1 and ${MAX_REPLICAS}`);
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // two malloc arenas: with glibc's default (8 per core) RSS rose in ~5 MB steps as libuv
  // threads touched new arenas (bench/SOAK.md, 2026-12-03); the environment can override it
  const env: Record<string, string | undefined> = {
    ...process.env,
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    ...options.env,
  };
  const replicas: ReplicaProcess[] = [];
  for (let i = 1; i <= options.replicas; i++) {
    const own = { ...env, ...options.replicaEnv?.[`gw${i}`] };
    replicas.push(new ReplicaProcess(`gw${i}`, await freePort(), own, log));
  }
  const port = options.port || (await freePort());
  const statsPort = await freePort();
  let lb: ChildProcess | undefined;
  let stopped = false;
  let supervisor: NodeJS.Timeout | undefined;
  const killAll = (): void => {
    for (const r of replicas) r.kill('SIGKILL');
    lb?.kill('SIGKILL');
  };
  process.once('exit', killAll);

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (supervisor) clearInterval(supervisor);
    await Promise.all(replicas.map((r) => r.stop()));
    if (lb && lb.exitCode === null && lb.signalCode === null) {
      const done = new Promise((resolve) => lb!.once('exit', resolve));
      lb.kill('SIGTERM');
      const timer = setTimeout(() => lb?.kill('SIGKILL'), 5000);
      await done;
      clearTimeout(timer);
    }
    process.removeListener('exit', killAll);
  };

  try {
    await Promise.all(replicas.map((r) => r.start()));
    const lbEnv: Record<string, string | undefined> = {
      ...process.env,
      GW_LB_BIND: `127.0.0.1:${port}`,
      GW_LB_STATS: `127.0.0.1:${statsPort}`,
    };
    replicas.forEach((r, i) => (lbEnv[`GW_REPLICA_${i + 1}`] = `127.0.0.1:${r.port}`));
    lb = spawn(haproxy, ['-f', HAPROXY_CONFIG, '-db'], {
      env: lbEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    for (const stream of [lb.stdout, lb.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line.trim()) log(`[haproxy] ${line}`);
      });
    }
    const statsUrl = `http://127.0.0.1:${statsPort}`;
    const upReplicas = async (): Promise<string[]> => {
      const csv = await (
        await fetch(`${statsUrl}/;csv`, { signal: AbortSignal.timeout(1000) })
      ).text();
      return csv
        .split('\n')
        .map((line) => line.split(','))
        .filter((f) => f[0] === 'gateways' && f[1]?.startsWith('gw') && f[17]?.startsWith('UP'))
        .map((f) => f[1]);
    };
    await waitFor(
      `HAProxy on port ${port} routing to ${replicas.length} replica(s)`,
      async () => (await upReplicas()).length === replicas.length,
      30_000,
      () => lb?.exitCode === null && lb?.signalCode === null,
    );
    if (options.supervise) {
      supervisor = setInterval(() => {
        for (const r of replicas) {
          if (stopped || r.stopping) continue;
          if (r.restarting) continue;
          if (r.running) void r.probe();
          else if (r.child && !r.restarting) {
            r.restarting = true;
            log(
              `[cluster] ${r.name} exited (${r.child.signalCode ?? r.child.exitCode}); starting it again`,
            );
            r.start()
              .catch((err: unknown) => log(`[cluster] ${r.name} did not start: ${String(err)}`))
              .finally(() => (r.restarting = false));
          }
        }
      }, 1000);
      supervisor.unref();
    }
    return { url: `http://127.0.0.1:${port}`, statsUrl, replicas, upReplicas, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
