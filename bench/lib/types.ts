import type { Cleanup } from './cleanup';
import type { DemoFixture } from './demo';

export type Verdict = 'met' | 'missed' | 'info' | 'n/a';

/** One line of the summary table. */
export interface Row {
  scenario: string;
  metric: string;
  gateway: string;
  baseline: string;
  ratio: string;
  target: string;
  verdict: Verdict;
  /** the machine's 1-min load average while the scenario ran (set by run.ts) */
  load?: string;
}

export interface ScenarioResult {
  rows: Row[];
  /** markdown: method notes and detail tables */
  details: string[];
  /** this scenario's part of the --json object */
  json: Record<string, unknown> | null;
  /** markdown sections from CPU profiles taken because a target was missed */
  profiles: string[];
}

export interface Tuning {
  /** A/B rounds per comparison */
  rounds: number;
  /** seconds per measured load run */
  loadSec: number;
  /** seconds of unrecorded load before the rounds: at least min, until stable, at most max */
  warmupMinSec: number;
  warmupMaxSec: number;
  /** connections (autocannon) = concurrent workers (direct pg) */
  connections: number;
  /** seconds per concurrency-1 latency run (call) */
  serialSec: number;
  propagationChanges: number;
  scaleLevels: number[];
  coldReps: number;
  warmSec: number;
  cacheRounds: number;
}

export interface BenchContext {
  quick: boolean;
  tuning: Tuning;
  cleanup: Cleanup;
  runId: string;
  /** seeded demo database; scenarios clone it (it must have no open connections) */
  template: string;
  /** a clone of it and one gateway on it, shared by the read-only scenarios */
  demo: DemoFixture;
  /** take CPU profiles of the gateway where a target is missed */
  profileOnMiss: boolean;
  /** take CPU profiles whether or not a target is missed */
  profileAlways: boolean;
}

export type Scenario = (ctx: BenchContext) => Promise<ScenarioResult>;

export function emptyResult(): ScenarioResult {
  return { rows: [], details: [], json: null, profiles: [] };
}
