import { Metrics, withSpan } from '@app/registry';
import { Injectable, Logger } from '@nestjs/common';

/** What meta_tool's gates report: a counter, a duration and a log line per decision. */
@Injectable()
export class GateMetrics {
  private readonly logger = new Logger('MetaTool');

  constructor(private readonly metrics: Metrics) {
    metrics.describe(
      'gateway_meta_tool_gate_total',
      'meta_tool gate outcomes, by gate and outcome',
    );
    metrics.describe(
      'gateway_meta_tool_gate_duration_seconds',
      'time spent in each meta_tool gate, by gate and outcome',
    );
  }

  /**
   * Runs one gate in a span and reports its time, pass/fail and a log line. A gate passes
   * when it returns no violations (an array) or a verdict that is not `ok: false`.
   */
  async timed<T>(gate: 'static' | 'runtime', fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await withSpan(`meta_tool.gate.${gate}`, { 'gateway.gate': gate }, fn);
    const passed = Array.isArray(result)
      ? result.length === 0
      : (result as { ok?: boolean }).ok !== false;
    const outcome = passed ? 'pass' : 'fail';
    this.metrics.observe(
      'gateway_meta_tool_gate_duration_seconds',
      { gate, outcome },
      (performance.now() - started) / 1000,
    );
    this.decided(gate, outcome);
    return result;
  }

  /** One counter increment and one log line per gate decision (names and ids, never code). */
  decided(gate: string, outcome: string, proposalId?: string): void {
    this.metrics.inc('gateway_meta_tool_gate_total', { gate, outcome });
    this.logger.log(
      `meta_tool gate ${gate}: ${outcome}${proposalId ? ` (proposal ${proposalId})` : ''}`,
    );
  }
}
