import type { StoredReport } from './catalog-records';
import type { ServedTool } from '../listing/served-tool';
import type { AdmittedReport } from './tenant-catalog';

export type ServedReport = Extract<ServedTool, { kind: 'report' }>;

/** Judges one stored report (template guard, metadata checks) for a tenant's data scope. */
export type AdmitReport = (stored: StoredReport) => AdmittedReport;

interface Parts {
  stored: Map<string, StoredReport>;
  verdicts: Map<string, AdmittedReport>;
  tools: Map<string, ServedReport>;
  byCategory: Map<string, readonly ServedReport[]>;
}

/**
 * A tenant's reports at one catalog version: as stored, the verdict on each, and the served
 * tools by name and by category. The next version is patched from this one with only the
 * reports that changed; when none did (an access or context change), it is this very object.
 * So rebuilding a tenant's catalog costs what changed, not the size of the tenant.
 *
 * Immutable once built: catalogs of older versions still in use keep their own set.
 */
export class ReportSet {
  private constructor(
    /** the data scope (schema and allowed tables) every verdict was made against */
    readonly scope: string,
    private readonly parts: Parts,
  ) {}

  static empty(scope: string): ReportSet {
    return new ReportSet(scope, {
      stored: new Map(),
      verdicts: new Map(),
      tools: new Map(),
      byCategory: new Map(),
    });
  }

  static of(reports: Iterable<StoredReport>, scope: string, admit: AdmitReport): ReportSet {
    return ReportSet.empty(scope).patch([...reports], [], scope, admit);
  }

  get size(): number {
    return this.parts.stored.size;
  }

  /** Every report as stored (for L2 snapshots and full rebuilds). */
  storedReports(): IterableIterator<StoredReport> {
    return this.parts.stored.values();
  }

  verdict(id: string): AdmittedReport | undefined {
    return this.parts.verdicts.get(id);
  }

  /** A served report tool by tool name. */
  tool(name: string): ServedReport | undefined {
    return this.parts.tools.get(name);
  }

  tools(): IterableIterator<ServedReport> {
    return this.parts.tools.values();
  }

  inCategory(category: string): readonly ServedReport[] {
    return this.parts.byCategory.get(category) ?? [];
  }

  /**
   * This set with `changed` reports (re)judged and `removed` ids gone; `this` when nothing
   * changed. A new data scope (schema or allowed tables) re-judges every report.
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
      return ReportSet.empty(scope).patch([...all.values()], [], scope, admit);
    }
    if (changed.length === 0 && removed.length === 0) return this;
    const next: Parts = {
      stored: new Map(this.parts.stored),
      verdicts: new Map(this.parts.verdicts),
      tools: new Map(this.parts.tools),
      byCategory: new Map(this.parts.byCategory),
    };
    const touched = new Set<string>();
    const dirtyCategories = new Set<string>();
    const drop = (id: string) => {
      const before = next.stored.get(id);
      if (!before) return;
      touched.add(id);
      dirtyCategories.add(before.metadata.category);
      const name = next.verdicts.get(id)?.tool?.definition.name;
      if (name !== undefined) next.tools.delete(name);
      next.stored.delete(id);
      next.verdicts.delete(id);
    };
    for (const id of removed) drop(id);
    const added = new Map<string, ServedReport[]>();
    for (const stored of changed) {
      const { id, category } = stored.metadata;
      drop(id);
      touched.add(id);
      dirtyCategories.add(category);
      const verdict = admit(stored);
      next.stored.set(id, stored);
      next.verdicts.set(id, verdict);
      if (verdict.tool) {
        const tool: ServedReport = {
          kind: 'report',
          definition: verdict.tool.definition,
          report: verdict.tool,
        };
        next.tools.set(tool.definition.name, tool);
        const list = added.get(category);
        if (list) list.push(tool);
        else added.set(category, [tool]);
      }
    }
    for (const category of dirtyCategories) {
      const members = [
        ...this.inCategory(category).filter((t) => !touched.has(t.report.report.id)),
        ...(added.get(category) ?? []),
      ];
      if (members.length > 0) next.byCategory.set(category, members);
      else next.byCategory.delete(category);
    }
    return new ReportSet(scope, next);
  }
}
