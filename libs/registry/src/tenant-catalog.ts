import { ReportTool, TemplateError } from '@app/templates';
import type { AccessPolicy } from './access-policy';
import type { StoredReport, TenantRecord } from './catalog.repository';

export type ReportServingStatus =
  | { served: true }
  | { served: false; reason: string; problems?: Array<{ rule: string; message: string }> };

/** One tenant's catalog at one version: rendered tools, why others are not served, access. */
export class TenantCatalog {
  readonly tools = new Map<string, ReportTool>();
  readonly statuses = new Map<string, ReportServingStatus>();

  constructor(
    readonly tenant: TenantRecord,
    reports: StoredReport[],
    readonly access: AccessPolicy,
    /** judges a template before it is served; the SQL guard plugs in here */
    validateTemplate: (
      tool: ReportTool,
      tenant: TenantRecord,
    ) => Array<{ rule: string; message: string }>,
  ) {
    for (const stored of reports) {
      this.statuses.set(stored.metadata.id, this.admit(stored, validateTemplate));
    }
  }

  get version(): number {
    return this.tenant.catalogVersion;
  }

  private admit(
    stored: StoredReport,
    validateTemplate: (
      tool: ReportTool,
      tenant: TenantRecord,
    ) => Array<{ rule: string; message: string }>,
  ): ReportServingStatus {
    if (stored.status === 'disabled') return { served: false, reason: 'disabled' };
    if (!this.tenant.dataSchema) return { served: false, reason: 'the tenant has no datasource' };
    let tool: ReportTool;
    try {
      tool = new ReportTool(stored.metadata);
    } catch (err) {
      if (err instanceof TemplateError)
        return { served: false, reason: 'invalid metadata', problems: err.problems };
      throw err;
    }
    const problems = validateTemplate(tool, this.tenant);
    if (problems.length > 0)
      return { served: false, reason: 'the SQL template was rejected', problems };
    this.tools.set(tool.definition.name, tool);
    return { served: true };
  }
}
