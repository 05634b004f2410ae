import type { AccessPolicy } from '../../access/access-policy';
import type { GeneratedTool } from './generated-tools';
import type { ReportSet } from './report-set';
import type { ReportServingStatus } from './report-set-patch';
import type { TenantRecord } from './catalog-records';

export type { AdmittedReport, ReportServingStatus } from './report-set-patch';

/** One tenant's catalog at one version: report tools, why others are not served, access. */
export class TenantCatalog {
  /** generated tools (meta_tool) that passed the integrity checks */
  readonly generated = new Map<string, GeneratedTool>();

  constructor(
    readonly tenant: TenantRecord,
    readonly reports: ReportSet,
    readonly access: AccessPolicy,
    generated: GeneratedTool[] = [],
  ) {
    for (const tool of generated) this.generated.set(tool.definition.name, tool);
  }

  get version(): number {
    return this.tenant.catalogVersion;
  }

  reportVersion(id: string): number | undefined {
    return this.reports.verdict(id)?.version;
  }

  /** Whether the report is served, and if not why; undefined for an unknown id. */
  reportStatus(id: string): ReportServingStatus | undefined {
    return this.reports.verdict(id)?.status;
  }
}
