import { figuresByTool, NEVER_CALLED, ReportAdminService, ReportUsage } from '@app/registry';
import type { Principal, ToolFigures, ToolUsage } from '@app/registry';
import { vegaLiteSpec } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { ReportCharts } from '../charts/report-charts';
import type { ChartAttachment } from '../charts/report-charts';
import { ConsoleAdminService } from './console-admin.service';

/**
 * The console's usage reads: how one tool is used (its calls per day drawn), and every report's
 * figures side by side. Both work inside the caller's tenant and check the admin role first.
 */
@Injectable()
export class ConsoleUsageService {
  constructor(
    private readonly console: ConsoleAdminService,
    private readonly reports: ReportAdminService,
    private readonly usageTable: ReportUsage,
    private readonly charts: ReportCharts,
  ) {}

  /**
   * How one tool of the caller's tenant is used over the last `days`: calls, error and
   * empty-result rates, latency percentiles, how callers found it, and calls per day drawn.
   */
  async usage(
    admin: Principal,
    tool: string,
    days: number,
  ): Promise<ToolUsage & { enabled: boolean; chart: ChartAttachment }> {
    await this.console.adminCatalog(admin);
    await this.usageTable.flush();
    const usage = await this.usageTable.usage(admin.tenantId, tool, days);
    const spec = vegaLiteSpec(
      { type: 'line', x: 'day', y: ['calls', 'errors', 'empty'] },
      [
        { name: 'day', type: 'date' },
        { name: 'calls', type: 'integer' },
        { name: 'errors', type: 'integer' },
        { name: 'empty', type: 'integer' },
      ],
      usage.daily,
      `${tool}: calls per day`,
    );
    return {
      ...usage,
      enabled: this.usageTable.enabled,
      chart: await this.charts.drawSpec('line', spec, 'svg'),
    };
  }

  /**
   * Every report of the caller's tenant with its figures over the last `days`: calls, errors,
   * empty results, p50/p95; a report no one called is listed with zero calls, never left out.
   */
  async usageOverview(
    admin: Principal,
    days: number,
  ): Promise<{
    days: number;
    enabled: boolean;
    reports: Array<{ id: string; name: string; tool: string } & ToolFigures>;
  }> {
    const reports = await this.reports.list(admin); // checks the admin role
    await this.usageTable.flush();
    const figures = figuresByTool(await this.usageTable.tenantHours(admin.tenantId, days));
    return {
      days,
      enabled: this.usageTable.enabled,
      reports: reports
        .map((r) => {
          const tool = `query_report_${r.id}`;
          return { id: r.id, name: r.name, tool, ...(figures.get(tool) ?? NEVER_CALLED) };
        })
        .sort((a, b) => b.calls - a.calls || (a.id < b.id ? -1 : 1)),
    };
  }
}
