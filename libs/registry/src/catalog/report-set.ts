import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { reportToolName } from '@app/templates';
import type { StoredReport } from './catalog-records';
import type { ServedTool } from '../listing/served-tool';
import type { AdmittedReport } from './tenant-catalog';
import { patchedParts } from './report-set-patch';
import type { Parts } from './report-set-patch';

export type ServedReport = Extract<ServedTool, { kind: 'report' }>;

/**
 * Judges one stored report (template guard, metadata checks) for a tenant's data scope.
 * `preload`, when given, fetches what makes judging a batch cheap (verdicts persisted by
 * template hash) before the batch is judged.
 */
export type AdmitReport = ((stored: StoredReport) => AdmittedReport) & {
  preload?: (batch: readonly StoredReport[]) => Promise<void>;
};

/** How long one slice of judging may hold the event loop before it yields (ms). */
export const ADMISSION_SLICE_MS = 10;

const TOOL_PREFIX = reportToolName('');

/**
 * A tenant's reports at one catalog version: as stored, the verdict on each, and the served
 * tools by name and by category. The next version is patched from this one with only the
 * reports that changed; when none did (an access or context change), it is this very object.
 * So rebuilding a tenant's catalog costs what changed, not the size of the tenant.
 *
 * A lazy set (`ReportSet.lazy`, how the loader builds a tenant's first catalog) judges a
 * report the first time it is needed: a list first `prepare`s the ids its caller can reach,
 * in slices that yield to the event loop, so the first list of a user who sees 5 reports of
 * 100,000 judges 5. Verdicts are memoised (here and in ReportAdmission), never changed.
 *
 * Immutable once built (judging lazily fills caches, it does not change what the set says):
 * catalogs of older versions still in use keep their own set.
 */
export class ReportSet {
  private constructor(
    /** the data scope (schema and allowed tables) every verdict was made against */
    readonly scope: string,
    private readonly parts: Parts,
    private readonly admit: AdmitReport,
    readonly lazy: boolean,
  ) {}

  static empty(scope: string, admit: AdmitReport = notJudged, lazy = false): ReportSet {
    return new ReportSet(
      scope,
      { stored: new Map(), verdicts: new Map(), served: new Map(), byCategory: new Map() },
      admit,
      lazy,
    );
  }

  /** Every report judged now. */
  static of(reports: Iterable<StoredReport>, scope: string, admit: AdmitReport): ReportSet {
    return ReportSet.empty(scope, admit).patch([...reports], [], scope, admit);
  }

  /** Reports judged when first needed (see `prepare`). */
  static lazy(reports: Iterable<StoredReport>, scope: string, admit: AdmitReport): ReportSet {
    return ReportSet.empty(scope, admit, true).patch([...reports], [], scope, admit);
  }

  get size(): number {
    return this.parts.stored.size;
  }

  /** How many reports are not judged yet. */
  get unjudged(): number {
    return this.parts.stored.size - this.parts.verdicts.size;
  }

  /** Every report as stored (for L2 snapshots and full rebuilds). */
  storedReports(): IterableIterator<StoredReport> {
    return this.parts.stored.values();
  }

  ids(): IterableIterator<string> {
    return this.parts.stored.keys();
  }

  /** A report as stored, by id. */
  storedReport(id: string): StoredReport | undefined {
    return this.parts.stored.get(id);
  }

  verdict(id: string): AdmittedReport | undefined {
    const known = this.parts.verdicts.get(id);
    if (known) return known;
    const stored = this.parts.stored.get(id);
    return stored ? this.judge(stored) : undefined;
  }

  /** A served report tool by tool name. */
  tool(name: string): ServedReport | undefined {
    if (!name.startsWith(TOOL_PREFIX)) return undefined;
    const id = name.slice(TOOL_PREFIX.length);
    return this.verdict(id) && this.parts.served.get(id);
  }

  *tools(): IterableIterator<ServedReport> {
    for (const id of this.parts.stored.keys()) {
      if (this.verdict(id) === undefined) continue;
      const tool = this.parts.served.get(id);
      if (tool) yield tool;
    }
  }

  inCategory(category: string): readonly ServedReport[] {
    const ids = this.parts.byCategory.get(category) ?? [];
    const tools: ServedReport[] = [];
    for (const id of ids) {
      this.verdict(id);
      const tool = this.parts.served.get(id);
      if (tool) tools.push(tool);
    }
    return tools;
  }

  /** The ids of the reports in these categories and of these ids (those that exist). */
  idsReachable(categories: Iterable<string>, ids: Iterable<string>): string[] {
    const found = new Set<string>();
    for (const category of categories)
      for (const id of this.parts.byCategory.get(category) ?? []) found.add(id);
    for (const id of ids) if (this.parts.stored.has(id)) found.add(id);
    return [...found];
  }

  /**
   * Judges the reports of these ids (default: all) that are not judged yet, in batches that
   * hold the event loop at most about ADMISSION_SLICE_MS each; between batches it yields
   * (setImmediate), so other tenants' requests are served while a big set is judged.
   * Returns how many times it yielded.
   */
  async prepare(ids?: Iterable<string>): Promise<number> {
    const pending: StoredReport[] = [];
    for (const id of ids ?? this.parts.stored.keys()) {
      if (this.parts.verdicts.has(id)) continue;
      const stored = this.parts.stored.get(id);
      if (stored) pending.push(stored);
    }
    let yields = 0;
    let batch = 50;
    for (let i = 0; i < pending.length;) {
      const slice = pending.slice(i, i + batch);
      if (this.admit.preload) await this.admit.preload(slice);
      const started = performance.now();
      let done = 0;
      for (const stored of slice) {
        if (!this.parts.verdicts.has(stored.metadata.id)) this.judge(stored);
        done++;
        if (performance.now() - started > ADMISSION_SLICE_MS) break;
      }
      i += done;
      // the next batch about as big as fits in a slice
      batch = done === slice.length ? Math.min(batch * 2, 1000) : Math.max(1, done);
      if (i < pending.length) {
        await yieldToLoop();
        yields++;
      }
    }
    return yields;
  }

  private judge(stored: StoredReport): AdmittedReport {
    const id = stored.metadata.id;
    const verdict = this.admit(stored);
    this.parts.verdicts.set(id, verdict);
    if (verdict.tool)
      this.parts.served.set(id, {
        kind: 'report',
        definition: verdict.tool.definition,
        report: verdict.tool,
      });
    return verdict;
  }

  /**
   * This set with `changed` reports (re)judged and `removed` ids gone; `this` when nothing
   * changed. A new data scope (schema or allowed tables) re-judges every report (a lazy set:
   * when each is next needed).
   */
  patch(
    changed: readonly StoredReport[],
    removed: readonly string[],
    scope: string,
    admit: AdmitReport,
  ): ReportSet {
    if (scope !== this.scope) {
      const all = new Map(this.parts.stored);
      for (const id of removed) all.delete(id);
      for (const s of changed) all.set(s.metadata.id, s);
      return ReportSet.empty(scope, admit, this.lazy).patch([...all.values()], [], scope, admit);
    }
    if (changed.length === 0 && removed.length === 0) return this;
    const next = patchedParts(this.parts, changed, removed);
    const set = new ReportSet(scope, next, admit, this.lazy);
    // an eager set judges what changed now; a lazy one when it is needed (a big first load
    // is judged in slices by `prepare`, a small refresh when listed)
    if (!this.lazy) for (const stored of changed) set.judge(stored);
    return set;
  }
}

const notJudged: AdmitReport = (stored) => ({
  id: stored.metadata.id,
  version: stored.metadata.version,
  status: { served: false, reason: 'not judged' },
});
