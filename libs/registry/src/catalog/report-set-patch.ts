import type { StoredReport } from './catalog-records';
import type { ServedTool } from '../listing/served-tool';
import type { AdmittedReport } from './tenant-catalog';

type ServedReport = Extract<ServedTool, { kind: 'report' }>;

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
