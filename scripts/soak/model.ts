/** Who the soak speaks as, what it calls, and how it records and judges what it sees. */

export const GRACE_MS = 1500; // a list may reflect the catalog this long before the request started
export const RECOVERY_MS = 10_000; // after a fault ends, answers are still counted to the fault

export type Who = {
  tenant: string;
  user: string;
  roles: string[];
  claims?: Record<string, string>;
};
export const alice: Who = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
export const fiona: Who = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
export const sam: Who = {
  tenant: 'acme',
  user: 'sam',
  roles: ['sales_rep'],
  claims: { region: 'east' },
};
export const root: Who = {
  tenant: 'acme',
  user: 'root',
  roles: ['admin'],
  claims: { region: 'west' },
};
export const gina: Who = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
export const author: Who = { tenant: 'acme', user: 'ada', roles: ['tool_author'] };
export const reviewer: Who = { tenant: 'acme', user: 'rex', roles: ['tool_reviewer'] };
export const LISTERS = [alice, fiona, sam, root, gina];
export const FORMATS = ['openai', 'anthropic', 'mcp'];
export const CONTEXTS = ['', 'SALES', 'FINANCE', 'INVENTORY'];

export const DEMO_CALLS: Array<[string, Record<string, unknown>]> = [
  ['sales_by_region', { region: 'east' }],
  ['top_customers', { min_total: 1000 }],
  ['orders_by_status', { statuses: ['shipped'] }],
  ['order_lookup', { order_id: 42 }],
  ['customers_by_segment', {}],
  ['sales_in_my_region', {}],
  ['my_orders', {}],
  ['revenue_by_month', { year: 2025 }],
  ['average_order_value', { region: 'north' }],
  ['product_catalog', { price: { min: 10, max: 500 } }],
  ['low_stock', { only_below_reorder: true }],
];

export interface Sample {
  t: number; // ms since start (request start)
  ms: number;
  op: string;
  phase: string;
  status: number;
  cls: string;
}

export interface Phase {
  name: string;
  start: number;
  end: number;
}

export class Recorder {
  readonly samples: Sample[] = [];
  readonly phases: Phase[] = [];
  readonly rss: Array<{ t: number; replica: string; pid: number; mb: number }> = [];
  /** the replica's own view (its /metrics): V8 heap used, memory outside the heap, series */
  readonly heap: Array<{
    t: number;
    replica: string;
    heapMb: number;
    heapTotalMb: number;
    externalMb: number;
    seriesLines: number;
  }> = [];
  /** heap used and RSS right after a full GC, every 20 s and once after the traffic */
  readonly afterGc: Array<{
    t: number;
    replica: string;
    pid: number;
    heapMb: number;
    rssMb: number;
    heapTotalMb?: number;
    externalMb?: number;
  }> = [];
  readonly notes: string[] = [];
  constructor(readonly t0: number) {}

  now(): number {
    return Date.now() - this.t0;
  }

  phaseAt(t: number): string {
    for (const p of this.phases) if (t >= p.start && t <= p.end + RECOVERY_MS) return p.name;
    return t < this.warmupEnd ? 'warm-up' : 'steady';
  }

  inPause(t0: number, t1: number): boolean {
    return this.phases.some(
      (p) => p.name === 'pause-postgres' && t1 >= p.start && t0 <= p.end + RECOVERY_MS,
    );
  }

  warmupEnd = 0;

  /** the first full text of each class of failure, for the report */
  readonly examples = new Map<string, string>();

  add(s: Omit<Sample, 'phase'>, detail?: string): Sample {
    const sample = { ...s, phase: this.phaseAt(s.t) };
    this.samples.push(sample);
    this.example(sample.cls, detail);
    return sample;
  }

  example(cls: string, detail?: string): void {
    if (cls !== 'ok' && detail && !this.examples.has(cls))
      this.examples.set(cls, detail.slice(0, 300));
  }
}

/**
 * Catalog history of the reports the soak itself adds/changes/removes. A write commits at
 * some moment between its request and its answer, so while it is in flight both the
 * catalog before it and the one after it are right: each state is valid from the start of
 * the write that made it to the answer of the write that replaced it.
 */
export class CatalogModel {
  private readonly history: Array<{ from: number; until: number; names: Set<string> }> = [
    { from: -Infinity, until: Infinity, names: new Set() },
  ];
  /** when the admin write now in flight was sent (the writer is single), or undefined */
  private writeSentAt: number | undefined;
  constructor(private readonly rec: Recorder) {}
  get current(): Set<string> {
    return this.history[this.history.length - 1].names;
  }
  /** a write is sent at `sentAt`: until `set`, lists answered after it cannot be judged */
  writing(sentAt: number): void {
    this.writeSentAt = sentAt;
  }
  /**
   * Is the model final for a list answered at `t1`? Yes unless a write sent before `t1` is
   * still in flight (its commit may already be visible to that list).
   */
  settledAt(t1: number): boolean {
    return this.writeSentAt === undefined || this.writeSentAt > t1;
  }
  /** a write sent at `sentAt` and answered now left the catalog holding `names` */
  set(names: Set<string>, sentAt: number): void {
    this.writeSentAt = undefined;
    const last = this.history[this.history.length - 1];
    if (last.names.size === names.size && [...names].every((n) => last.names.has(n))) return;
    last.until = this.rec.now();
    this.history.push({ from: sentAt, until: Infinity, names: new Set(names) });
  }
  /** the states valid in [from, to], for the log of a stale list */
  describe(from: number, to: number): string {
    const states = this.history.filter((h) => h.until >= from && h.from <= to);
    return states
      .map((h) => `[${[...h.names].sort().join(' ')}] from ${h.from} until ${h.until}`)
      .join('; ');
  }
  /** did the catalog hold exactly `seen` at some moment in [from, to]? */
  matches(seen: Set<string>, from: number, to: number): boolean {
    return this.history.some(
      (h) =>
        h.until >= from &&
        h.from <= to &&
        h.names.size === seen.size &&
        [...h.names].every((n) => seen.has(n)),
    );
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
