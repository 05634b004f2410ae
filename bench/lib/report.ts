import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './settings';
import type { Row, ScenarioResult } from './types';

export interface RunInfo {
  command: string;
  date: string;
  durationSec: number;
  quick: boolean;
  postgres: string;
  redis: string;
  build: string;
  load: string;
  tuning: string;
}

const VERDICT: Record<Row['verdict'], string> = {
  met: 'met',
  missed: '**MISSED**',
  info: '',
  'n/a': 'n/a',
};

export function summaryTable(rows: Row[]): string[] {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| scenario | metric | gateway | baseline | ratio | target | verdict | load |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${cell(r.metric)} | ${cell(r.gateway)} | ${cell(r.baseline)} | ${r.ratio} | ${cell(r.target)} | ${VERDICT[r.verdict]} | ${r.load ?? ''} |`,
    ),
  ];
}

/**
 * The 1-min load average at a scenario's start and end. The start tells what else ran (the
 * bench's own processes load a 2-core machine to about 2 while it measures, so the end is
 * always high); a scenario that started above the core count is marked and not judged.
 */
export function loadMark(start: number, end: number): string {
  const busy = start > os.cpus().length;
  return `${start.toFixed(2)} -> ${end.toFixed(2)}${busy ? ' (busy: above the core count at start, not judged)' : ''}`;
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** The whole markdown report: header, summary table, per-scenario details, profiles. */
export function renderReport(info: RunInfo, results: Map<string, ScenarioResult>): string {
  const rows = [...results.values()].flatMap((r) => r.rows);
  const lines = [
    '# Benchmark results',
    '',
    `- Command: \`${info.command}\`${info.quick ? ' (quick mode: shorter runs, fewer rounds)' : ''}`,
    `- Date: ${info.date} (the run took ${info.durationSec.toFixed(0)} s)`,
    `- Machine: ${machine()}`,
    `- Servers: PostgreSQL ${info.postgres} and Redis ${info.redis} on 127.0.0.1; every process of the bench on this machine`,
    `- Gateway: ${info.build}; run as \`node dist/apps/gateway/src/main.js\` child processes, NODE_ENV=production`,
    `- Settings: ${info.tuning}`,
    `- Machine load: ${info.load}. Other engineers' builds and tests may share these 2 cores; the A/B alternation spreads such noise over both sides, but absolute numbers move with it.`,
    '',
    'The load column is the 1-min load average at the start and end of that scenario (its own load generator and gateways raise the end); a scenario that started above the core count is marked busy and is not a verdict on the code.',
    '',
    'Every ratio is gateway / baseline from the same run: for throughput higher is better, for latency lower is better. The machine has only 2 cores, shared by the load generator (autocannon, in the bench process), the gateway (or the baseline server), Postgres and Redis, so absolute numbers are low and both sides of a comparison pay for the same contention; ratios, not absolute numbers, are the result.',
    '',
    '## Summary',
    '',
    ...summaryTable(rows),
    '',
  ];
  for (const [name, result] of results) {
    lines.push(`## ${name}`, '', ...result.details, '');
    if (result.profiles.length > 0) lines.push(...result.profiles, '');
  }
  const analysis = path.join(ROOT, 'bench/ANALYSIS.md');
  if (existsSync(analysis)) {
    lines.push(
      '---',
      '',
      '_The section below is bench/ANALYSIS.md, written by hand from the profiles of a full run; it is not regenerated._',
      '',
      readFileSync(analysis, 'utf8').trim(),
      '',
    );
  }
  return lines.join('\n');
}

/** Where the generated report ends in RESULTS.md: what follows was added by hand or by other benches. */
export const KEPT_SECTIONS_MARKER =
  '<!-- sections below were added by hand or by other benches; npm run bench -- --record keeps them -->';

/** Writes the report; the sections after KEPT_SECTIONS_MARKER in the file it replaces stay. */
export function writeReport(file: string, markdown: string): void {
  const target = path.resolve(ROOT, file);
  mkdirSync(path.dirname(target), { recursive: true });
  const previous = existsSync(target) ? readFileSync(target, 'utf8') : '';
  const kept = previous.indexOf(KEPT_SECTIONS_MARKER);
  writeFileSync(target, kept === -1 ? markdown : `${markdown}\n${previous.slice(kept)}`);
}
