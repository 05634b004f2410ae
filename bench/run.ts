/**
 * `npm run bench [-- list|call|lookup|results|propagation|scale|meta|cache ...] [--quick] [--json]`
 * Starts what it needs on 127.0.0.1 (a seeded database, built gateway processes, baseline
 * servers), runs bounded loads, prints a table, writes bench/RESULTS.md, cleans up.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, rmdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioName } from './lib/args';
import { parseArgs } from './lib/args';
import { Cleanup, cleanupOnSignals } from './lib/cleanup';
import { createSeededDatabase, postgresVersion, sweepRun } from './lib/database';
import { DemoFixture } from './lib/demo';
import { log } from './lib/log';
import { watchMachineLoad } from './lib/machine-load';
import { loadMark, machine, renderReport, summaryTable, writeReport } from './lib/report';
import { clearRun, redisVersion } from './lib/redis';
import { GATEWAY_MAIN, ROOT, RUN_ID, RUN_TMP } from './lib/settings';
import type { BenchContext, Scenario, ScenarioResult, Tuning } from './lib/types';
import { emptyResult } from './lib/types';
import { cacheScenario } from './scenarios/cache';
import { callScenario } from './scenarios/call';
import { listScenario } from './scenarios/list';
import { lookupScenario } from './scenarios/lookup';
import { resultsScenario } from './scenarios/results';
import { generatedScenario } from './scenarios/generated';
import { metaScenario } from './scenarios/meta';
import { opsScenario } from './scenarios/ops';
import { opsSplitScenario } from './scenarios/ops-split';
import { propagationScenario } from './scenarios/propagation';
import { scaleScenario } from './scenarios/scale';
import { scaleDistinctScenario } from './scenarios/scale-distinct';

const RUNNERS: Record<ScenarioName, Scenario> = {
  list: listScenario,
  call: callScenario,
  lookup: lookupScenario,
  results: resultsScenario,
  propagation: propagationScenario,
  scale: scaleScenario,
  'scale-distinct': scaleDistinctScenario,
  meta: metaScenario,
  generated: generatedScenario,
  cache: cacheScenario,
  ops: opsScenario,
  'ops-split': opsSplitScenario,
};

const QUICK: Tuning = {
  rounds: 3,
  loadSec: 0.5,
  warmupMinSec: 1.5,
  warmupMaxSec: 2,
  connections: 10,
  serialSec: 0.5,
  propagationChanges: 100,
  scaleLevels: [100, 1_000, 10_000],
  coldReps: 3,
  warmSec: 0.5,
  cacheRounds: 2,
};

const FULL: Tuning = {
  rounds: 5,
  loadSec: 4,
  warmupMinSec: 4,
  warmupMaxSec: 10,
  connections: 10,
  serialSec: 2,
  propagationChanges: 100,
  scaleLevels: [100, 1_000, 10_000, 100_000],
  coldReps: 5,
  warmSec: 3,
  cacheRounds: 5,
};

function describeTuning(t: Tuning): string {
  return `${t.connections} connections; ${t.rounds} A/B rounds of ${t.loadSec} s after a gateway warm-up of ${t.warmupMinSec}-${t.warmupMaxSec} s (until throughput is stable); concurrency-1 runs of ${t.serialSec} s; ${t.propagationChanges} propagation changes; scale levels ${t.scaleLevels.map((l) => l.toLocaleString('en-US')).join(' / ')} with ${t.coldReps} cold builds and ${t.warmSec} s warm runs; ${t.cacheRounds} cache rounds`;
}

/**
 * The gateway runs as built; build only when dist is missing or older than the sources.
 * Others edit the app while this runs: a failed build is retried once, then the existing
 * dist is used (and the report says so).
 */
async function buildGateway(): Promise<string> {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
    .toString()
    .trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs', 'db'], {
    cwd: ROOT,
  })
    .toString()
    .split('\n')
    .filter(Boolean).length;
  const code = `commit ${commit}${dirty > 0 ? ` + ${dirty} uncommitted changes in apps/libs/db` : ''}`;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const exit = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['scripts/build-if-needed.js'], {
        cwd: ROOT,
        stdio: ['ignore', process.stderr, process.stderr],
      });
      child.on('exit', resolve);
      child.on('error', () => resolve(-1));
    });
    if (exit === 0) return `${code}, built (dist up to date)`;
    log(`build failed (attempt ${attempt})`);
    if (attempt === 1) await new Promise((r) => setTimeout(r, 5000));
  }
  if (!existsSync(GATEWAY_MAIN)) throw new Error('the gateway does not build and there is no dist');
  log('WARNING: the build failed twice; measuring the existing dist');
  return `${code}; WARNING: the build failed, the existing (stale) dist was measured`;
}

/** After a signal the cleanup runs on its own and exits; write no report. */
function interrupted(cleanup: Cleanup): boolean {
  return cleanup.signalled;
}

function failed(name: string, err: unknown): ScenarioResult {
  const message = err instanceof Error ? err.message : String(err);
  const result = emptyResult();
  result.rows.push({
    scenario: name,
    metric: 'error',
    gateway: message.split('\n')[0].slice(0, 200),
    baseline: '',
    ratio: '',
    target: '',
    verdict: 'missed',
  });
  result.details.push('```', err instanceof Error ? (err.stack ?? message) : message, '```');
  return result;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const command =
    process.env.npm_lifecycle_event === 'bench'
      ? `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`
      : `tsx bench/run.ts ${argv.join(' ')}`.trim();
  const started = Date.now();
  const machineLoad = watchMachineLoad();
  const cleanup = new Cleanup();
  cleanupOnSignals(cleanup);
  // Registered first, so it runs last.
  cleanup.add("sweep this run's databases, roles and Redis keys", async () => {
    await sweepRun(RUN_ID);
    await clearRun(RUN_ID);
    rmSync(RUN_TMP, { recursive: true, force: true });
    try {
      rmdirSync(path.dirname(RUN_TMP)); // bench/.tmp, when no other run uses it
    } catch {
      // not empty: another run's files
    }
  });
  const tuning = args.quick ? QUICK : FULL;
  const results = new Map<string, ScenarioResult>();
  let errors = 0;
  let build = 'not built';
  let postgres = 'unknown';
  let redis = 'unknown';
  log(`${command} on ${machine()}`);
  try {
    postgres = await postgresVersion();
    redis = await redisVersion();
    const template = `gw_bench_${RUN_ID}`;
    // The seed runs from the sources, so it can overlap the build.
    const seeding = createSeededDatabase(cleanup, template);
    const [built] = await Promise.allSettled([buildGateway(), seeding]).then((r) => {
      for (const x of r) if (x.status === 'rejected') throw x.reason;
      return r.map((x) => (x.status === 'fulfilled' ? x.value : undefined));
    });
    build = typeof built === 'string' ? built : build;
    const ctx: BenchContext = {
      quick: args.quick,
      tuning,
      cleanup,
      runId: RUN_ID,
      template,
      demo: new DemoFixture(cleanup, RUN_ID, template),
      profileOnMiss: !args.quick && !args.noProfile,
      profileAlways: args.profile,
    };
    for (const name of args.scenarios) {
      if (cleanup.closing) break;
      log(`scenario ${name}`);
      const t0 = Date.now();
      const loadAtStart = os.loadavg()[0];
      try {
        const result = await RUNNERS[name](ctx);
        const load = loadMark(loadAtStart, os.loadavg()[0]);
        for (const row of result.rows) row.load = load;
        results.set(name, result);
      } catch (err) {
        errors++;
        log(
          `scenario ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
        results.set(name, failed(name, err));
      }
      log(`scenario ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } catch (err) {
    errors++;
    log(`setup failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    results.set('setup', failed('setup', err));
  } finally {
    log('cleaning up');
    await cleanup.runAll();
  }

  if (interrupted(cleanup)) return 130;
  const durationSec = (Date.now() - started) / 1000;
  const report = renderReport(
    {
      command,
      date: new Date(started).toISOString(),
      durationSec,
      quick: args.quick,
      postgres,
      redis,
      build,
      load: machineLoad(),
      tuning: describeTuning(tuning),
    },
    results,
  );
  writeReport(args.out, report);
  const out: string[] = ['', ...summaryTable([...results.values()].flatMap((r) => r.rows)), ''];
  for (const [name, result] of results) out.push(`## ${name}`, '', ...result.details, '');
  out.push(`(written to ${args.out}; ${durationSec.toFixed(0)} s)`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (args.json) {
    const json: Record<string, unknown> = {};
    for (const [name, result] of results) json[name] = result.json;
    process.stdout.write(`${JSON.stringify(json)}\n`);
  }
  return errors > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
