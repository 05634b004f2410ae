import { identityValue, isIdentityParam, reportToolName, TOOL_NAME_PREFIX } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { CatalogService } from '../listing/catalog.service';
import { RegistryError } from '../errors';
import type { Principal } from './principal';
import { accessSubject } from '../listing/served-tool';
import type { ServedTool } from '../listing/served-tool';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';

export interface AccessCheck {
  check: 'exists' | 'served' | 'grant' | 'context' | 'claims';
  ok: boolean;
  detail: string;
}

export interface AccessExplanation {
  tool: string;
  user: string;
  visible: boolean;
  effective_roles: string[];
  checks: AccessCheck[];
}

/**
 * Answers "why can (not) this user see tool X?" inside the caller's own tenant. Admins get
 * every check and may ask about another user; anyone else learns only about tools they can
 * see, so a forbidden tool reads exactly like a missing one.
 */
@Injectable()
export class AccessExplainer {
  constructor(private readonly catalogs: CatalogService) {}

  async explain(
    viewer: Principal,
    subject: Principal,
    name: string,
    context?: string,
  ): Promise<AccessExplanation> {
    const { catalog, tools } = await this.catalogs.tenantTools(viewer.tenantId);
    const isAdmin = catalog.access.isAdmin(catalog.access.effectiveRoles(viewer));
    if (!isAdmin && (subject.userId !== viewer.userId || subject.tenantId !== viewer.tenantId)) {
      throw new RegistryError(
        'FORBIDDEN',
        'only an admin of your tenant may explain access for another user',
      );
    }
    const roles = catalog.access.effectiveRoles(subject);
    const checks = this.checks(catalog, tools, subject, roles, name, context);
    const visible = checks.every((c) => c.ok);
    if (!isAdmin && !visible) {
      return {
        tool: name,
        user: subject.userId,
        visible,
        effective_roles: roles,
        checks: [
          {
            check: 'exists',
            ok: false,
            detail: `no tool named "${name}" is available to you; an admin of your tenant can explain why`,
          },
        ],
      };
    }
    return { tool: name, user: subject.userId, visible, effective_roles: roles, checks };
  }

  private checks(
    catalog: TenantCatalog,
    tools: ServedTool[],
    subject: Principal,
    roles: string[],
    name: string,
    context: string | undefined,
  ): AccessCheck[] {
    const tool = tools.find((t) => t.definition.name === name);
    if (!tool) return unservedChecks(catalog, name);
    const subjectOf = accessSubject(tool);
    const decision = catalog.access.decide(subject, roles, subjectOf);
    const checks: AccessCheck[] = [
      {
        check: 'exists',
        ok: true,
        detail: `${tool.kind} ${subjectOf.id} in category ${subjectOf.category}`,
      },
      { check: 'served', ok: true, detail: 'served' },
      { check: 'grant', ok: decision.allowed, detail: decision.reason },
    ];
    if (context !== undefined) {
      const inContext = catalog.access.inContext(context, subjectOf);
      checks.push({
        check: 'context',
        ok: inContext,
        detail: inContext
          ? `in context ${context}`
          : `not in context ${context} (category ${subjectOf.category})`,
      });
    }
    if (tool.kind === 'report') checks.push(claimsCheck(tool.report.identityParams, subject));
    return checks;
  }
}

/** A name no served tool has: no such tool, or a report the catalog does not serve, and why. */
function unservedChecks(catalog: TenantCatalog, name: string): AccessCheck[] {
  const reportId = name.startsWith(TOOL_NAME_PREFIX)
    ? name.slice(TOOL_NAME_PREFIX.length)
    : undefined;
  const status =
    reportId !== undefined && reportToolName(reportId) === name
      ? catalog.reportStatus(reportId)
      : undefined;
  if (!status || status.served) {
    return [
      {
        check: 'exists',
        ok: false,
        detail: `no tool named "${name}" exists in tenant ${catalog.tenant.id}`,
      },
    ];
  }
  const problems = status.problems?.map((p) => p.message).join('; ');
  return [
    { check: 'exists', ok: true, detail: `report ${reportId} exists` },
    {
      check: 'served',
      ok: false,
      detail: `not served: ${status.reason}${problems ? ` (${problems})` : ''}`,
    },
  ];
}

/** Whether the token carries every identity parameter the report binds. */
function claimsCheck(identityParams: readonly string[], subject: Principal): AccessCheck {
  const missing = identityParams.filter(
    (p) => isIdentityParam(p) && identityValue(subject, p) === undefined,
  );
  return {
    check: 'claims',
    ok: missing.length === 0,
    detail:
      missing.length === 0
        ? 'every bound parameter is in the token'
        : `the token lacks ${missing.map((p) => p.replace(/^claim_/, 'claim ')).join(', ')}`,
  };
}
