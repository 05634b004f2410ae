import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { Principal } from '../access/principal';
import { REGISTRY_OPTIONS } from '../tokens';
import { ReportUsageRepository } from './report-usage.repository';
import type { FoundVia, RegistryOptions, UsageSettings } from '../tokens';
import {
  DEFAULT_USAGE,
  histogramQuantile,
  latencyBucket,
  LATENCY_BOUNDS_MS,
} from './usage-figures';
import type { CallFacts, Counts, ToolUsage } from './usage-figures';

/** Pending keys this instance holds between flushes; past it, calls are dropped and logged. */
const MAX_PENDING_KEYS = 20_000;
/** How long a select or search_tools answer names the tool a caller calls next. */
const SUGGESTION_TTL_MS = 30 * 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Per-tenant usage of each tool (issue #33), for its authors and admins: counted in memory
 * per (tenant, tool, hour, found_via) and added to `gateway.report_usage` every `flushMs` by
 * an upsert that sums, so replicas add up. A failed write keeps the counts for the next one
 * (bounded); a tool call never waits for this table.
 */
@Injectable()
export class ReportUsage implements OnApplicationShutdown {
  private readonly log = new Logger('ReportUsage');
  private readonly settings: UsageSettings;
  private pending = new Map<string, Counts>();
  private readonly suggestions = new LRUCache<string, FoundVia>({
    max: 50_000,
    ttl: SUGGESTION_TTL_MS,
  });
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private lastPrune = 0;
  private dropped = 0;

  constructor(
    private readonly repository: ReportUsageRepository,
    @Optional() @Inject(REGISTRY_OPTIONS) options: RegistryOptions | null = null,
  ) {
    this.settings = { ...DEFAULT_USAGE, ...(options?.usage ?? {}) };
  }

  get enabled(): boolean {
    return this.settings.retentionDays > 0;
  }

  /** A select or search_tools answer named these tools to the caller. */
  suggested(principal: Principal, names: readonly string[], via: 'selected' | 'searched'): void {
    if (!this.enabled) return;
    for (const name of names) this.suggestions.set(suggestionKey(principal, name), via);
  }

  /** How the caller found the tool: the last select/search_tools that named it, else its list. */
  foundVia(principal: Principal, name: string): FoundVia {
    return this.suggestions.get(suggestionKey(principal, name)) ?? 'listed';
  }

  record(principal: Principal, tool: string, facts: CallFacts, now = Date.now()): void {
    if (!this.enabled) return;
    const hour = Math.floor(now / HOUR) * HOUR;
    const key = JSON.stringify([principal.tenantId, tool, hour, this.foundVia(principal, tool)]);
    let counts = this.pending.get(key);
    if (!counts) {
      if (this.pending.size >= MAX_PENDING_KEYS) {
        this.dropped += 1;
        return;
      }
      counts = {
        calls: 0,
        errors: 0,
        empty: 0,
        cached: 0,
        latencyMsSum: 0,
        latency: emptyHistogram(),
      };
      this.pending.set(key, counts);
    }
    counts.calls += 1;
    if (facts.failed) counts.errors += 1;
    if (facts.empty) counts.empty += 1;
    if (facts.cached) counts.cached += 1;
    counts.latencyMsSum += facts.ms;
    counts.latency[latencyBucket(facts.ms)] += 1;
    this.timer ??= setTimeout(() => void this.flush(), this.settings.flushMs).unref();
  }

  /** Writes what this instance counted; one flush at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async write(): Promise<void> {
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    if (this.dropped > 0) {
      this.log.warn(`usage: ${this.dropped} calls not counted (over ${MAX_PENDING_KEYS} keys)`);
      this.dropped = 0;
    }
    if (batch.size === 0) return;
    const rows = [...batch].map(([key, c]) => {
      const [tenant, tool, hour, via] = JSON.parse(key) as [string, string, number, FoundVia];
      return {
        tenant_id: tenant,
        tool,
        hour: new Date(hour).toISOString(),
        found_via: via,
        calls: c.calls,
        errors: c.errors,
        empty: c.empty,
        cached: c.cached,
        latency_ms_sum: c.latencyMsSum,
        latency_buckets: c.latency,
      };
    });
    try {
      await this.repository.add(rows);
      await this.prune();
    } catch (err) {
      // kept for the next flush (a tenant deleted meanwhile: its counts go with it)
      this.log.warn(`usage: counts not written, kept for the next flush: ${String(err)}`);
      for (const [key, counts] of batch) this.merge(key, counts);
      this.timer ??= setTimeout(() => void this.flush(), this.settings.flushMs).unref();
    }
  }

  private merge(key: string, counts: Counts): void {
    const held = this.pending.get(key);
    if (!held) {
      if (this.pending.size < MAX_PENDING_KEYS) this.pending.set(key, counts);
      else this.dropped += counts.calls;
      return;
    }
    held.calls += counts.calls;
    held.errors += counts.errors;
    held.empty += counts.empty;
    held.cached += counts.cached;
    held.latencyMsSum += counts.latencyMsSum;
    counts.latency.forEach((n, i) => (held.latency[i] += n));
  }

  /** Deletes hours past the retention, at most once an hour per instance. */
  private async prune(now = Date.now()): Promise<void> {
    if (now - this.lastPrune < HOUR) return;
    this.lastPrune = now;
    await this.repository.prune(new Date(now - this.settings.retentionDays * DAY).toISOString());
  }

  /** One tool's usage in the caller's tenant over the last `days` (what the table holds). */
  async usage(tenantId: string, tool: string, days: number, now = Date.now()): Promise<ToolUsage> {
    const since = Math.floor(now / DAY) * DAY - (days - 1) * DAY;
    const rows = await this.repository.read(tenantId, tool, new Date(since).toISOString());
    const latency = emptyHistogram();
    const foundVia: Record<FoundVia, number> = { listed: 0, selected: 0, searched: 0 };
    const byDay = new Map<number, { calls: number; errors: number; empty: number }>();
    let calls = 0;
    let errors = 0;
    let empty = 0;
    let cached = 0;
    for (const r of rows) {
      calls += r.calls;
      errors += r.errors;
      empty += r.empty;
      cached += r.cached;
      foundVia[r.found_via] += r.calls;
      r.latency_buckets.forEach((n, i) => (latency[i] += n));
      const day = Math.floor(new Date(r.hour).getTime() / DAY) * DAY;
      const d = byDay.get(day) ?? { calls: 0, errors: 0, empty: 0 };
      d.calls += r.calls;
      d.errors += r.errors;
      d.empty += r.empty;
      byDay.set(day, d);
    }
    const daily = [];
    for (let day = since; day <= now; day += DAY) {
      const d = byDay.get(day) ?? { calls: 0, errors: 0, empty: 0 };
      daily.push({ day: new Date(day).toISOString().slice(0, 10), ...d });
    }
    const ok = calls - errors;
    return {
      tool,
      days,
      summary: {
        calls,
        errors,
        error_rate: calls === 0 ? null : errors / calls,
        empty,
        empty_rate: ok === 0 ? null : empty / ok,
        cached,
        cached_share: calls === 0 ? null : cached / calls,
        p50_ms: histogramQuantile(latency, 0.5),
        p95_ms: histogramQuantile(latency, 0.95),
        found_via: foundVia,
      },
      daily,
    };
  }

  /** The hourly counts of every tool of the tenant over the last `days` (see figuresByTool). */
  async tenantHours(tenantId: string, days: number, now = Date.now()) {
    const since = Math.floor(now / DAY) * DAY - (days - 1) * DAY;
    return this.repository.readTenant(tenantId, new Date(since).toISOString());
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.flush();
  }
}

function emptyHistogram(): number[] {
  return new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
}

function suggestionKey(principal: Principal, name: string): string {
  return `${principal.tenantId}\u0000${principal.userId}\u0000${name}`;
}
