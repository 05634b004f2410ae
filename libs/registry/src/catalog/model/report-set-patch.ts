import type { StoredReport } from './catalog-records';
import type { ServedTool } from '../../listing/served-tool';
import type { ReportTool, TemplateProblem } from '@app/templates';

export type ServedReport = Extract<ServedTool, { kind: 'report' }>;

export type ReportServingStatus =
  { served: true } | { served: false; reason: string; problems?: TemplateProblem[] };

/** The verdict on one report version: its tool when served, else why not. */
export interface AdmittedReport {
  id: string;
  version: number;
  status: ReportServingStatus;
  tool?: ReportTool;
}

/**
 * Judges one stored report (template guard, metadata checks) for a tenant's data scope.
 * `preload`, when given, fetches what makes judging a batch cheap (verdicts persisted by
 * template hash) before the batch is judged.
 */
export type AdmitReport = ((stored: StoredReport) => AdmittedReport) & {
  preload?: (batch: readonly StoredReport[]) => Promise<void>;
};

/** The verdict of a set built without a judge (never asked of a set that is used). */
export const notJudged: AdmitReport = (stored) => ({
  id: stored.metadata.id,
  version: stored.metadata.version,
  status: { served: false, reason: 'not judged' },
});

/** What a report set holds (ReportSet). */
export interface Parts {
  stored: Map<string, StoredReport>;
  /** verdicts made so far (all of them, unless the set is lazy) */
  verdicts: Map<string, AdmittedReport>;
  /** the served tool of every judged report that is served */
  served: Map<string, ServedReport>;
  /** report ids by category, every report whether judged yet or not */
  byCategory: Map<string, readonly string[]>;
}

export function emptyParts(): Parts {
  return { stored: new Map(), verdicts: new Map(), served: new Map(), byCategory: new Map() };
}

/**
 * Adds a page of reports to the parts of a set being built (not shared yet), none judged:
 * a snapshot read in id order never holds an id twice.
 */
export function appendToParts(parts: Parts, page: readonly StoredReport[]): void {
  for (const stored of page) {
    const { id, category } = stored.metadata;
    parts.stored.set(id, stored);
    const members = parts.byCategory.get(category) as string[] | undefined;
    if (members) members.push(id);
    else parts.byCategory.set(category, [id]);
  }
}

/**
 * The parts of a report set with `changed` reports put in (not judged yet) and `removed`
 * ids gone, copied from `parts` (never changed): only the categories touched are rebuilt.
 */
export function patchedParts(
  parts: Parts,
  changed: readonly StoredReport[],
  removed: readonly string[],
): Parts {
  const next: Parts = {
    stored: new Map(parts.stored),
    verdicts: new Map(parts.verdicts),
    served: new Map(parts.served),
    byCategory: new Map(parts.byCategory),
  };
  const touched = new Set<string>();
  const dirtyCategories = new Set<string>();
  const drop = (id: string) => {
    const before = next.stored.get(id);
    if (!before) return;
    touched.add(id);
    dirtyCategories.add(before.metadata.category);
    next.stored.delete(id);
    next.verdicts.delete(id);
    next.served.delete(id);
  };
  for (const id of removed) drop(id);
  const added = new Map<string, string[]>();
  for (const stored of changed) {
    const { id, category } = stored.metadata;
    drop(id);
    touched.add(id);
    dirtyCategories.add(category);
    next.stored.set(id, stored);
    const list = added.get(category);
    if (list) list.push(id);
    else added.set(category, [id]);
  }
  rebuildCategories(parts.byCategory, next.byCategory, dirtyCategories, touched, added);
  return next;
}

/** The member lists of the categories a patch touched: the untouched members, then the added. */
function rebuildCategories(
  before: ReadonlyMap<string, readonly string[]>,
  byCategory: Map<string, readonly string[]>,
  dirtyCategories: ReadonlySet<string>,
  touched: ReadonlySet<string>,
  added: ReadonlyMap<string, string[]>,
): void {
  for (const category of dirtyCategories) {
    const members = [
      ...(before.get(category) ?? []).filter((id) => !touched.has(id)),
      ...(added.get(category) ?? []),
    ];
    if (members.length > 0) byCategory.set(category, members);
    else byCategory.delete(category);
  }
}

/** The rows of `reports` that are not held in `parts`, or newer than the one held. */
export function newerRows(parts: Parts, reports: readonly StoredReport[]): StoredReport[] {
  return reports.filter((r) => {
    const held = parts.stored.get(r.metadata.id);
    // one server's timestamptz text, fixed format: text order is time order
    return !held || held.updatedAt < r.updatedAt;
  });
}

/** The ids of the reports in these categories and of these ids (those that exist). */
export function reachableIds(
  parts: Parts,
  categories: Iterable<string>,
  ids: Iterable<string>,
): string[] {
  const found = new Set<string>();
  for (const category of categories)
    for (const id of parts.byCategory.get(category) ?? []) found.add(id);
  for (const id of ids) if (parts.stored.has(id)) found.add(id);
  return [...found];
}
