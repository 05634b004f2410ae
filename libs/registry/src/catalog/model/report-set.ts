import { reportToolName } from '@app/templates';
import type { StoredReport } from './catalog-records';
import type { AdmittedReport } from './report-set-patch';
import { emptyParts, newerRows, notJudged, patchedParts, reachableIds } from './report-set-patch';
import type { AdmitReport, Parts, ServedReport } from './report-set-patch';
import { Coverage } from './report-coverage';
import type { Reach, ReachPart } from './report-coverage';
import { inSlices } from './slices';

export type { AdmitReport, ServedReport } from './report-set-patch';

const TOOL_PREFIX = reportToolName('');

/**
 * A tenant's reports at one catalog version: as stored, the verdict on each, and the served
 * tools by name and by category. The next version is patched from this one with only the
 * reports that changed (this very object when none did), so rebuilding a tenant's catalog
 * costs what changed, not the size of the tenant.
 *
 * A lazy set (`ReportSet.lazy`, how the loader builds a tenant's first catalog) judges a
 * report the first time it is needed: a list first `prepare`s the ids its caller can reach,
 * in slices that yield to the event loop, so the first list of a user who sees 5 reports of
 * 100,000 judges 5. Verdicts are memoised (here and in ReportAdmission), never changed.
 *
 * A partial set (`ReportSet.partial`, a big tenant's first catalog) holds only the parts of
 * the tenant its callers' grants reached so far (`covered`, `absorb`): see CatalogLoader.
 *
 * Immutable once built (judging lazily fills caches, a partial set only grows by whole
 * categories and ids, a report it holds only by a newer row): catalogs of older versions
 * still in use keep their own set.
 */
export class ReportSet {
  private constructor(
    /** the data scope (schema and allowed tables) every verdict was made against */
    readonly scope: string,
    private parts: Parts,
    private readonly admit: AdmitReport,
    readonly lazy: boolean,
    /** what a partial set holds in full; undefined: the set holds every report */
    private readonly coverage?: Coverage,
  ) {}

  static empty(scope: string, admit: AdmitReport = notJudged, lazy = false): ReportSet {
    return new ReportSet(scope, emptyParts(), admit, lazy);
  }

  /** A lazy set of a tenant's reports read page by page (see appendToParts). */
  static fromParts(parts: Parts, scope: string, admit: AdmitReport): ReportSet {
    return new ReportSet(scope, parts, admit, true);
  }

  /** A lazy set holding none of the tenant's reports yet: parts are added by `absorb`. */
  static partial(scope: string, admit: AdmitReport): ReportSet {
    return new ReportSet(scope, emptyParts(), admit, true, Coverage.none());
  }

  /** Every report judged now. */
  static of(reports: Iterable<StoredReport>, scope: string, admit: AdmitReport): ReportSet {
    return ReportSet.empty(scope, admit).patch([...reports], [], scope, admit);
  }

  /** Reports judged when first needed (see `prepare`). */
  static lazy(reports: Iterable<StoredReport>, scope: string, admit: AdmitReport): ReportSet {
    return ReportSet.empty(scope, admit, true).patch([...reports], [], scope, admit);
  }

  /** Whether the set holds every report of its tenant (not partial). */
  get complete(): boolean {
    return this.coverage === undefined;
  }

  /** The parts of `reach` a partial set does not hold yet (nothing for a complete set). */
  missing(reach: Reach): ReachPart {
    return this.coverage
      ? this.coverage.missing(reach, (id) => this.parts.stored.has(id))
      : { categories: [], ids: [] };
  }

  /** Puts the reports read for `part` into a partial set (a held one only if newer). */
  absorb(reports: readonly StoredReport[], part: ReachPart): void {
    if (!this.coverage) return;
    const newer = newerRows(this.parts, reports);
    if (newer.length > 0) this.parts = patchedParts(this.parts, newer, []);
    this.coverage.add(part);
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
    return reachableIds(this.parts, categories, ids);
  }

  /**
   * Judges the reports of these ids (default: all) not judged yet, in slices that yield to
   * the event loop (inSlices). Returns how many times it yielded.
   */
  async prepare(ids?: Iterable<string>): Promise<number> {
    const pending: StoredReport[] = [];
    for (const id of ids ?? this.parts.stored.keys()) {
      if (this.parts.verdicts.has(id)) continue;
      const stored = this.parts.stored.get(id);
      if (stored) pending.push(stored);
    }
    const judge = (stored: StoredReport) =>
      this.parts.verdicts.has(stored.metadata.id) || this.judge(stored);
    return inSlices(pending, judge, { preload: this.admit.preload });
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
      const fresh = new ReportSet(scope, emptyParts(), admit, this.lazy, this.coverage?.copy());
      return fresh.patch([...all.values()], [], scope, admit);
    }
    if (changed.length === 0 && removed.length === 0) return this;
    const next = patchedParts(this.parts, changed, removed);
    const set = new ReportSet(scope, next, admit, this.lazy, this.coverage?.copy());
    // an eager set judges what changed now; a lazy one when it is needed (a big first load
    // is judged in slices by `prepare`, a small refresh when listed)
    if (!this.lazy) for (const stored of changed) set.judge(stored);
    return set;
  }
}
