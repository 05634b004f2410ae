/** Where a caller's grants reach among a tenant's reports: whole categories and single ids. */
export interface Reach {
  categories: Iterable<string>;
  ids: Iterable<string>;
}

/** A part of a tenant's reports to read: these categories and these ids. */
export interface ReachPart {
  categories: string[];
  ids: string[];
}

/**
 * Which parts of a tenant's reports a partial report set holds in full: every report of a
 * covered category, and the report of a covered id (or the knowledge that there is none).
 * It only grows; a patched set starts from a copy.
 */
export class Coverage {
  private constructor(
    private readonly categories: Set<string>,
    private readonly ids: Set<string>,
  ) {}

  static none(): Coverage {
    return new Coverage(new Set(), new Set());
  }

  copy(): Coverage {
    return new Coverage(new Set(this.categories), new Set(this.ids));
  }

  /** The parts of `reach` not covered yet; `held` tells an id whose report the set holds. */
  missing(reach: Reach, held: (id: string) => boolean): ReachPart {
    const categories = [...new Set(reach.categories)].filter((c) => !this.categories.has(c));
    const ids = [...new Set(reach.ids)].filter((id) => !this.ids.has(id) && !held(id));
    return { categories, ids };
  }

  add(part: ReachPart): void {
    for (const category of part.categories) this.categories.add(category);
    for (const id of part.ids) this.ids.add(id);
  }
}

/** Whether a part names nothing to read. */
export function isEmptyPart(part: ReachPart): boolean {
  return part.categories.length === 0 && part.ids.length === 0;
}
