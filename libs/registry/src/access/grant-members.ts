/** The thing access is decided about: a report (id + category) or a built-in tool. */
export interface AccessSubject {
  /** report id, or the built-in tool's name */
  id: string;
  category: string;
  /** a built-in that only holders of this role may use (e.g. tool_author); grants do not apply */
  requiredRole?: string;
  /** holders of this role always see it; others need a grant (generated tools: tool_author) */
  ownerRole?: string;
  /** whether an admin role sees it without a grant (reports: yes; generated tools: no) */
  adminSees?: boolean;
}

/**
 * What one grant holder, per-user rule or business context names: whole categories and single
 * tools (by report id or tool name). A row names a category, a tool, or both.
 */
export class GrantMembers {
  readonly categories = new Set<string>();
  readonly tools = new Set<string>();

  constructor(readonly description = '') {}

  add(category: string | null, toolId: string | null): void {
    if (category) this.categories.add(category);
    if (toolId) this.tools.add(toolId);
  }

  covers(subject: AccessSubject): boolean {
    return this.tools.has(subject.id) || this.categories.has(subject.category);
  }

  /** How these members cover the subject, for explanations: by its id, else by its category. */
  describe(subject: AccessSubject): string {
    return this.tools.has(subject.id) ? subject.id : `category ${subject.category}`;
  }
}

/** The value under `key`, created on first use. */
export function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
