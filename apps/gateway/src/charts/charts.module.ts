import { Module } from '@nestjs/common';
import { ReportCharts } from './report-charts';
import { SvgCharts } from './svg-charts';

/** Report results drawn as charts: Vega-Lite specs, and SVG drawn in a worker (issue #33). */
@Module({
  providers: [ReportCharts, SvgCharts],
  exports: [ReportCharts],
})
export class ChartsModule {}
