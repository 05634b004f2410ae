import { Injectable } from '@nestjs/common';

type Labels = Record<string, string>;

function seriesKey(name: string, labels: Labels): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${labels[k].replace(/["\\\n]/g, '_')}"`);
  return parts.length ? `${name}{${parts.join(',')}}` : name;
}

/**
 * Counters and gauges in memory, rendered in the Prometheus text format at /metrics.
 * The one seam every part of the gateway reports through.
 */
@Injectable()
export class Metrics {
  private readonly counters = new Map<string, number>();
  private readonly gauges = new Map<string, number>();
  private readonly help = new Map<string, string>();

  describe(name: string, help: string): void {
    this.help.set(name, help);
  }

  inc(name: string, labels: Labels = {}, by = 1): void {
    const key = seriesKey(name, labels);
    this.counters.set(key, (this.counters.get(key) ?? 0) + by);
  }

  /** A counter whose series is fixed up front, for hot paths: no string building per call. */
  counter(name: string, labels: Labels = {}): () => void {
    const key = seriesKey(name, labels);
    return () => this.counters.set(key, (this.counters.get(key) ?? 0) + 1);
  }

  set(name: string, value: number, labels: Labels = {}): void {
    this.gauges.set(seriesKey(name, labels), value);
  }

  value(name: string, labels: Labels = {}): number {
    const key = seriesKey(name, labels);
    return this.counters.get(key) ?? this.gauges.get(key) ?? 0;
  }

  render(): string {
    const lines: string[] = [];
    const emit = (series: Map<string, number>, type: string) => {
      const seen = new Set<string>();
      for (const [key, value] of [...series].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const name = key.split('{')[0];
        if (!seen.has(name)) {
          seen.add(name);
          const help = this.help.get(name);
          if (help) lines.push(`# HELP ${name} ${help}`);
          lines.push(`# TYPE ${name} ${type}`);
        }
        lines.push(`${key} ${value}`);
      }
    };
    emit(this.counters, 'counter');
    emit(this.gauges, 'gauge');
    return `${lines.join('\n')}\n`;
  }
}
