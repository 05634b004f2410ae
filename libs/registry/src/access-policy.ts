import { createHash } from 'node:crypto';
import type { ReportMetadata } from '@app/templates';
import type { AccessRecords } from './catalog.repository';
import type { Principal } from './principal';

interface Members {
  categories: Set<string>;
  reports: Set<string>;
}

/** Who may use which report, and which reports a business context holds, for one tenant. */
export class AccessPolicy {
  private readonly admins = new Set<string>();
  private readonly known = new Set<string>();
  private readonly grants = new Map<string, Members>();
  private readonly contexts = new Map<string, Members & { description: string }>();

  constructor(records: AccessRecords) {
    for (const role of records.roles) {
      this.known.add(role.name);
      if (role.isAdmin) this.admins.add(role.name);
    }
    for (const g of records.roleGrants) {
      const members = getOrCreate<string, Members>(this.grants, g.role, () => ({ categories: new Set(), reports: new Set() }));
      addMember(members, g.category, g.reportId);
    }
    for (const c of records.contexts) {
      const members = getOrCreate(this.contexts, c.name, () => ({ categories: new Set<string>(), reports: new Set<string>(), description: c.description }));
      addMember(members, c.category, c.reportId);
    }
  }

  /** The caller's roles that exist in this tenant, sorted; unknown role names grant nothing. */
  effectiveRoles(principal: Principal): string[] {
    return [...new Set(principal.roles)].filter((r) => this.known.has(r)).sort();
  }

  isAdmin(roles: readonly string[]): boolean {
    return roles.some((r) => this.admins.has(r));
  }

  /** The grant that lets these roles use the report, described for people; undefined if none. */
  grantFor(roles: readonly string[], report: ReportMetadata): string | undefined {
    const admin = roles.find((r) => this.admins.has(r));
    if (admin) return `role ${admin} is an admin of the tenant`;
    for (const role of roles) {
      const members = this.grants.get(role);
      if (members?.reports.has(report.id)) return `role ${role} is granted report ${report.id}`;
      if (members?.categories.has(report.category)) return `role ${role} is granted category ${report.category}`;
    }
    return undefined;
  }

  contextNames(): string[] {
    return [...this.contexts.keys()].sort();
  }

  hasContext(name: string): boolean {
    return this.contexts.has(name);
  }

  inContext(context: string, report: ReportMetadata): boolean {
    const members = this.contexts.get(context);
    return !!members && (members.reports.has(report.id) || members.categories.has(report.category));
  }
}

/**
 * Callers with the same key see the same tools: it covers the effective roles and which
 * bindable claims the token carries (not their values, which only change rows).
 */
export function permissionSetKey(roles: readonly string[], claimNames: readonly string[]): string {
  const material = `roles=${roles.join(',')};claims=${[...claimNames].sort().join(',')}`;
  return createHash('sha256').update(material).digest('base64url').slice(0, 22);
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

function addMember(members: Members, category: string | null, reportId: string | null): void {
  if (category) members.categories.add(category);
  if (reportId) members.reports.add(reportId);
}
