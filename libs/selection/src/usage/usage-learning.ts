import type { Principal } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { SELECTION_SIGNALS } from '../signal-options';
import type { SignalOptions } from '../signal-options';
import { ToolUsageRepository } from './tool-usage.repository';
import type { ToolUsage } from './tool-usage.repository';
import { UsageHistory } from './usage-history';

/** A question answered by select or search_tools, waiting for the call that follows it. */
interface Pending {
  query: string;
  source: ToolUsage['source'];
}

interface HeldHistory {
  history: UsageHistory;
  loadedAt: number;
}

/** How long after a select/search the next call still counts as its answer. */
const PENDING_TTL_MS = 10 * 60_000;
/** How often a tenant's history is re-read (other instances record too). */
export const HISTORY_RELOAD_MS = 60_000;
/** The newest records a tenant's history holds. */
export const HISTORY_ROWS = 10_000;
const DAY_MS = 86_400_000;

/**
 * Learning from use: remembers each user's last select/search question, records the tool the
 * user then calls (the model's real choice) in gateway.tool_usage, and serves each tenant's
 * history, loaded from that tenant's rows only.
 */
@Injectable()
export class UsageLearning {
  private readonly logger = new Logger(UsageLearning.name);
  private readonly pending = new LRUCache<string, Pending>({ max: 10_000, ttl: PENDING_TTL_MS });
  /** records each user added today (tenant, user, day): at most historyPerUserPerDay */
  private readonly today = new LRUCache<string, number>({ max: 100_000, ttl: DAY_MS });
  private readonly histories = new Map<string, HeldHistory>();
  private readonly loading = new Map<string, Promise<UsageHistory>>();
  /** the clock decay and reloads read (tests may set it) */
  now: () => number = Date.now;

  constructor(
    private readonly usage: ToolUsageRepository,
    @Inject(SELECTION_SIGNALS) private readonly signals: SignalOptions,
  ) {}

  get enabled(): boolean {
    return this.signals.history;
  }

  private key(principal: Principal): string {
    return `${principal.tenantId}\u0000${principal.userId}`;
  }

  /** A select or search_tools answered this user: the next tool call is its answer. */
  asked(principal: Principal, query: string, source: ToolUsage['source']): void {
    if (!this.enabled || query.trim() === '') return;
    this.pending.set(this.key(principal), { query, source });
  }

  /**
   * The user called `tool` (and it ran): records it against the pending question, once. The
   * write is not awaited by the call; a failed write loses one record, logged.
   */
  called(principal: Principal, tool: string): void {
    const key = this.key(principal);
    const pending = this.pending.get(key);
    if (!pending) return;
    this.pending.delete(key);
    // one user adds at most so many rows a day: their voice is one anyway (UsageHistory)
    const day = `${key}\u0000${Math.floor(this.now() / DAY_MS)}`;
    const added = this.today.get(day) ?? 0;
    if (added >= this.signals.historyPerUserPerDay) return;
    this.today.set(day, added + 1);
    const usage = { userId: principal.userId, query: pending.query, tool, source: pending.source };
    this.histories
      .get(principal.tenantId)
      ?.history.add({ query: usage.query, tool, at: this.now(), user: principal.userId });
    void this.usage.record(principal.tenantId, usage).catch((err: unknown) => {
      this.logger.warn(`tool usage not recorded: ${(err as Error).message}`);
    });
  }

  /** The tenant's history (its own rows only), re-read every HISTORY_RELOAD_MS. */
  async history(tenantId: string): Promise<UsageHistory | undefined> {
    if (!this.enabled) return undefined;
    const held = this.histories.get(tenantId);
    if (held && this.now() - held.loadedAt < HISTORY_RELOAD_MS) return held.history;
    let loading = this.loading.get(tenantId);
    if (!loading) {
      loading = this.load(tenantId).finally(() => this.loading.delete(tenantId));
      this.loading.set(tenantId, loading);
    }
    try {
      return await loading;
    } catch (err) {
      // selection works without history: an unreadable table costs this signal only
      this.logger.warn(`tool usage not loaded for ${tenantId}: ${(err as Error).message}`);
      return held?.history;
    }
  }

  private async load(tenantId: string): Promise<UsageHistory> {
    const now = this.now();
    const since = new Date(now - this.signals.historyMaxAgeDays * DAY_MS);
    const records = await this.usage.recent(tenantId, since, HISTORY_ROWS);
    // rows past the maximum age, or beyond the newest HISTORY_ROWS, never count again: the
    // re-read prunes them (indexed deletes), so the table stays bounded per tenant
    void Promise.all([
      this.usage.forget(tenantId, since),
      this.usage.trim(tenantId, HISTORY_ROWS),
    ]).catch((err: unknown) => {
      this.logger.warn(`old tool usage not pruned for ${tenantId}: ${(err as Error).message}`);
    });
    const history = new UsageHistory(
      {
        halfLifeDays: this.signals.historyHalfLifeDays,
        maxAgeDays: this.signals.historyMaxAgeDays,
        minUsers: this.signals.historyMinUsers,
      },
      records.reverse(),
    );
    this.histories.set(tenantId, { history, loadedAt: now });
    return history;
  }
}
