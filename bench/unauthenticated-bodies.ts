/**
 * `npx tsx bench/unauthenticated-bodies.ts [path/to/main.js]`: the hardening issue's item 4
 * reproduced. 60 connections each POST a 1 MB body without a token; after 5 s it reports the
 * gateway's RSS growth and how many connections were neither answered nor closed. Give another
 * build's main.js to measure it (the "before": the commit before the body gate).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { freePort } from './lib/ports';
import { runMain, withScratchDatabase } from './lib/scratch-database';

const CONNECTIONS = 60;
const BODY_BYTES = 1024 * 1024;
const WAIT_MS = 5000;

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

async function waitForHealth(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the gateway did not come up');
}

runMain(() =>
  withScratchDatabase('gw_bench_bodies', 2, async (databaseUrl) => {
    const main = path.resolve(process.argv[2] ?? 'dist/apps/gateway/src/main.js');
    const port = await freePort();
    const child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        AUTH_JWT_SECRET: 'bench-secret-0123456789-0123456789-abcdef',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitForHealth(url);
      const before = rssMb(child.pid!);
      const states = Array.from({ length: CONNECTIONS }, () => ({
        answered: false,
        closed: false,
      }));
      const sockets = states.map((state) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('data', () => (state.answered = true));
        socket.on('close', () => (state.closed = true));
        socket.on('error', () => undefined);
        socket.write(
          `POST /v1/tools/query_report_sales_by_region/call HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`,
        );
        socket.write(Buffer.alloc(BODY_BYTES, 0x20));
        return socket;
      });
      await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
      const after = rssMb(child.pid!);
      const pending = states.filter((s) => !s.answered && !s.closed).length;
      for (const socket of sockets) socket.destroy();
      console.log(
        JSON.stringify({
          build: main,
          connections: CONNECTIONS,
          body_bytes: BODY_BYTES,
          rss_before_mb: Math.round(before),
          rss_after_mb: Math.round(after),
          rss_growth_mb: Math.round(after - before),
          answered: states.filter((s) => s.answered).length,
          unanswered_open_after_5s: pending,
        }),
      );
    } finally {
      child.kill('SIGKILL');
    }
  }),
);
