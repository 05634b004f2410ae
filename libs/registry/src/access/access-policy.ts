import type { AccessRecords } from '../catalog/model/catalog-records';
import { getOrCreate, GrantMembers } from './grant-members';
import type { AccessSubject } from './grant-members';
import type { Principal } from './principal';

export interface AccessDecision {
  allowed: boolean;
  /** for people: which grant allowed it, or why nothing did */
  reason: string;
}

/**
 * Who may use what in one tenant. Roles come from the token plus the tenant's user->role
 * table; roles unknown to the tenant grant nothing. A per-user denial beats every grant.
 */
export class AccessPolicy {
  private readonly admins = new Set<string>();
  private readonly known = new Set<string>();
  private readonly roleGrants = new Map<string, GrantMembers>();
  private readonly userRoles = new Map<string, string[]>();
  private readonly userAllows = new Map<string, GrantMembers>();
  private readonly userDenials = new Map<string, GrantMembers>();
  private readonly contexts = new Map<string, GrantMembers>();

  constructor(records: AccessRecords) {
    for (const role of records.roles) {
      this.known.add(role.name);
      if (role.isAdmin) this.admins.add(role.name);
    }
    const members = () => new GrantMembers();
    for (const g of records.roleGrants)
      getOrCreate(this.roleGrants, g.role, members).add(g.category, g.reportId);
    for (const r of records.userRoles) getOrCreate(this.userRoles, r.userId, () => []).push(r.role);
    for (const g of records.userGrants) {
      const target = g.effect === 'deny' ? this.userDenials : this.userAllows;
      getOrCreate(target, g.userId, members).add(g.category, g.reportId);
    }
    for (const c of records.contexts)
      getOrCreate(this.contexts, c.name, () => new GrantMembers(c.description)).add(
        c.category,
        c.reportId,
      );
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
    if (denial?.covers(subject)) {
      return {
        allowed: false,
        reason: `a per-user denial for ${principal.userId} covers ${denial.describe(subject)}`,
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
      if (members?.covers(subject))
        return { allowed: true, reason: `role ${role} is granted ${members.describe(subject)}` };
    }
    const allow = this.userAllows.get(principal.userId);
    if (allow?.covers(subject))
      return {
        allowed: true,
        reason: `a per-user grant to ${principal.userId} covers ${allow.describe(subject)}`,
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
    return this.contexts.get(context)?.covers(subject) ?? false;
  }

  /** Users with per-user rules cannot share a tool list with anybody else. */
  hasUserRules(userId: string): boolean {
    return this.userAllows.has(userId) || this.userDenials.has(userId);
  }
}
