import { ReportTool, TemplateError } from '@app/templates';
import type { TemplateProblem } from '@app/templates';
import type { AccessPolicy } from './access-policy';
import type { StoredReport, TenantRecord } from './catalog.repository';
import { templateProblems } from './template-check';

export type ReportServingStatus =
  { served: true } | { served: false; reason: string; problems?: TemplateProblem[] };

/** One tenant's catalog at one version: rendered tools, why others are not served, access. */
export class TenantCatalog {
  readonly tools = new Map<string, ReportTool>();
  readonly statuses = new Map<string, ReportServingStatus>();
  private readonly versions = new Map<string, number>();

  constructor(
    readonly tenant: TenantRecord,
    reports: StoredReport[],
    readonly access: AccessPolicy,
  ) {
    for (const stored of reports) {
      this.versions.set(stored.metadata.id, stored.metadata.version);
      this.statuses.set(stored.metadata.id, this.admit(stored));
    }
  }

  get version(): number {
    return this.tenant.catalogVersion;
  }

  reportVersion(id: string): number | undefined {
    return this.versions.get(id);
  }

  /** Serves a report only if it is active, well-formed and its template passes the guard. */
  private admit(stored: StoredReport): ReportServingStatus {
    if (stored.status === 'disabled') return { served: false, reason: 'disabled' };
    let tool: ReportTool;
    try {
      tool = new ReportTool(stored.metadata);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      return { served: false, reason: 'invalid metadata', problems: err.problems };
    }
    const problems = templateProblems(stored.metadata, this.tenant);
    if (problems.length > 0) {
      return { served: false, reason: 'the SQL template was rejected', problems };
    }
    this.tools.set(tool.definition.name, tool);
    return { served: true };
  }
}
