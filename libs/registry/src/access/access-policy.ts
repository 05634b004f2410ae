import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AccessRecords } from '../catalog/catalog-records';
import type { Principal } from './principal';

/** What a grant or a context can name: whole categories and single tools. */
interface Members {
  categories: Set<string>;
  tools: Set<string>;
}

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

export interface AccessDecision {
  allowed: boolean;
  /** for people: which grant allowed it, or why nothing did */
  reason: string;
}

const emptyMembers = (): Members => ({ categories: new Set(), tools: new Set() });

/**
 * Who may use what in one tenant. Roles come from the token plus the tenant's user->role
 * table; roles unknown to the tenant grant nothing. A per-user denial beats every grant.
 */
export class AccessPolicy {
  private readonly admins = new Set<string>();
  private readonly known = new Set<string>();
  private readonly roleGrants = new Map<string, Members>();
  private readonly userRoles = new Map<string, string[]>();
  private readonly userAllows = new Map<string, Members>();
  private readonly userDenials = new Map<string, Members>();
  private readonly contexts = new Map<string, Members & { description: string }>();

  constructor(records: AccessRecords) {
    for (const role of records.roles) {
      this.known.add(role.name);
      if (role.isAdmin) this.admins.add(role.name);
    }
    for (const g of records.roleGrants)
      addMember(getOrCreate(this.roleGrants, g.role, emptyMembers), g.category, g.reportId);
    for (const r of records.userRoles) getOrCreate(this.userRoles, r.userId, () => []).push(r.role);
    for (const g of records.userGrants) {
      const target = g.effect === 'deny' ? this.userDenials : this.userAllows;
      addMember(getOrCreate(target, g.userId, emptyMembers), g.category, g.reportId);
    }
    for (const c of records.contexts) {
      const members = getOrCreate(this.contexts, c.name, () => ({
        ...emptyMembers(),
        description: c.description,
      }));
      addMember(members, c.category, c.reportId);
    }
  }

  /** Token roles plus stored user roles that exist in this tenant, sorted and unique. */
  effectiveRoles(principal: Principal): string[] {
    const stored = this.userRoles.get(principal.userId) ?? [];
    return [...new Set([...principal.roles, ...stored])].filter((r) => this.known.has(r)).sort();
  }

  isAdmin(roles: readonly string[]): boolean {
    return roles.some((r) => this.admins.has(r));
  }

  decide(principal: Principal, roles: readonly string[], subject: AccessSubject): AccessDecision {
    const denial = this.userDenials.get(principal.userId);
    if (denial && matches(denial, subject)) {
      return {
        allowed: false,
        reason: `a per-user denial for ${principal.userId} covers ${describe(subject, denial)}`,
      };
    }
    if (subject.requiredRole) {
      return roles.includes(subject.requiredRole)
        ? { allowed: true, reason: `holds role ${subject.requiredRole}` }
        : { allowed: false, reason: `needs role ${subject.requiredRole}` };
    }
    if (subject.ownerRole && roles.includes(subject.ownerRole)) {
      return { allowed: true, reason: `holds role ${subject.ownerRole}` };
    }
    const admin = subject.adminSees === false ? undefined : roles.find((r) => this.admins.has(r));
    if (admin) return { allowed: true, reason: `role ${admin} is an admin of the tenant` };
    for (const role of roles) {
      const members = this.roleGrants.get(role);
      if (members && matches(members, subject))
        return { allowed: true, reason: `role ${role} is granted ${describe(subject, members)}` };
    }
    const allow = this.userAllows.get(principal.userId);
    if (allow && matches(allow, subject))
      return {
        allowed: true,
        reason: `a per-user grant to ${principal.userId} covers ${describe(subject, allow)}`,
      };
    const who =
      roles.length > 0 ? `none of the roles ${roles.join(', ')}` : 'no role of the caller';
    return {
      allowed: false,
      reason: `${who} is granted ${subject.id} or category ${subject.category}`,
    };
  }

  /**
   * Where this caller's grants can reach, so a visible set is built from an index instead of
   * by scanning the whole catalog: every report (admins), or these categories and names.
   */
  reach(
    principal: Principal,
    roles: readonly string[],
  ): { everything: boolean; categories: Set<string>; names: Set<string> } {
    const categories = new Set<string>();
    const names = new Set<string>();
    for (const members of [
      ...roles.map((r) => this.roleGrants.get(r)),
      this.userAllows.get(principal.userId),
    ]) {
      members?.categories.forEach((c) => categories.add(c));
      members?.tools.forEach((t) => names.add(t));
    }
    return { everything: this.isAdmin(roles), categories, names };
  }

  contextNames(): string[] {
    return [...this.contexts.keys()].sort();
  }

  /** The tenant's business contexts with their descriptions, sorted by name. */
  contextList(): Array<{ name: string; description: string }> {
    return this.contextNames().map((name) => ({
      name,
      description: this.contexts.get(name)?.description ?? '',
    }));
  }

  hasContext(name: string): boolean {
    return this.contexts.has(name);
  }

  inContext(context: string, subject: AccessSubject): boolean {
    const members = this.contexts.get(context);
    return !!members && matches(members, subject);
  }

  /** Users with per-user rules cannot share a tool list with anybody else. */
  hasUserRules(userId: string): boolean {
    return this.userAllows.has(userId) || this.userDenials.has(userId);
  }
}

/**
 * Callers with the same key see the same tools: it covers the effective roles, which
 * bindable claims the token carries (not their values, which only change rows) and, for
 * users with per-user rules, the user.
 */
export function permissionSetKey(
  roles: readonly string[],
  claimNames: readonly string[],
  user?: string,
): string {
  const material = `roles=${roles.join(',')};claims=${[...claimNames].sort().join(',')};user=${user ?? ''}`;
  let key = permissionKeys.get(material);
  if (key === undefined) {
    key = createHash('sha256').update(material).digest('base64url').slice(0, 22);
    permissionKeys.set(material, key);
  }
  return key;
}

/** Few distinct permission sets exist; hashing each once keeps the warm list path cheap. */
const permissionKeys = new LRUCache<string, string>({ max: 10_000 });

function matches(members: Members, subject: AccessSubject): boolean {
  return members.tools.has(subject.id) || members.categories.has(subject.category);
}

function describe(subject: AccessSubject, members: Members): string {
  return members.tools.has(subject.id) ? `${subject.id}` : `category ${subject.category}`;
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

function addMember(members: Members, category: string | null, toolId: string | null): void {
  if (category) members.categories.add(category);
  if (toolId) members.tools.add(toolId);
}
