import { CatalogService } from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { chartOf, vegaLiteSpec } from '@app/templates';
import type { ChartColumn, ChartHint, ReportField } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { SvgCharts } from './svg-charts';

export const CHART_FORMATS = ['vega-lite', 'svg'] as const;
export type ChartFormat = (typeof CHART_FORMATS)[number];

/** What a REST call answer carries under `chart` when asked (`?chart=vega-lite|svg`). */
export type ChartAttachment =
  | { format: 'vega-lite'; type: string; spec: Record<string, unknown> }
  | { format: 'svg'; type: string; svg: string }
  | { format: ChartFormat; error: string };

/**
 * The chart of a report call's page, for clients that draw it themselves (a Vega-Lite spec
 * with the rows inline) or attach a picture (SVG, drawn here without a browser). A chart that
 * cannot be drawn says why; the call's rows are never lost to it.
 */
@Injectable()
export class ReportCharts {
  constructor(
    private readonly catalog: CatalogService,
    private readonly svg: SvgCharts,
  ) {}

  async attach(
    principal: Principal,
    name: string,
    outcome: ToolCallOutcome,
    format: ChartFormat,
  ): Promise<ChartAttachment | undefined> {
    // a tool error has no rows; a result that is a generated tool's own shape has no columns
    if (outcome.is_error || outcome.text !== undefined) return undefined;
    const resolved = await this.catalog.resolve(principal, name).catch(() => undefined);
    if (resolved?.tool.kind !== 'report')
      return { format, error: 'charts are drawn for report tools only' };
    return this.draw(resolved.tool.report.report, outcome.result, format);
  }

  /** A page of a report's rows drawn as its chart (its hint, else the inferred one). */
  async draw(
    report: { name: string; chart?: ChartHint; fields: readonly ReportField[] },
    page: { columns: ChartColumn[]; rows: Record<string, unknown>[] },
    format: ChartFormat,
  ): Promise<ChartAttachment> {
    const chart = chartOf(report);
    return this.drawSpec(
      chart.type,
      vegaLiteSpec(chart, page.columns, page.rows, report.name, report.fields),
      format,
    );
  }

  /** A Vega-Lite spec as the format asked; an SVG that cannot be drawn says why. */
  async drawSpec(
    type: string,
    spec: Record<string, unknown>,
    format: ChartFormat,
  ): Promise<ChartAttachment> {
    if (format === 'vega-lite') return { format, type, spec };
    try {
      return { format, type, svg: await this.svg.render(spec) };
    } catch (err) {
      return {
        format,
        error: `the chart could not be drawn: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  }
}
