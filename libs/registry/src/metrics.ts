import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

type Labels = Record<string, string>;

/** One series of a prom-client histogram as prom-client keeps it (`hashMap` values). */
interface HistogramSeries {
  labels: Labels;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

/** Latency buckets in seconds: sub-millisecond list answers up to multi-second queries. */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * The one seam every part of the gateway reports through, backed by a prom-client
 * registry (rendered at /metrics). A series' label names are fixed by the first use of its
 * name; `describe` gives its help text. Labels must have bounded values (see
 * docs/operations.md, "cardinality rule"): never a user id, a trace id or an argument.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly help = new Map<string, string>();
  private readonly counters = new Map<string, Counter>();
  private readonly gauges = new Map<string, Gauge>();
  private readonly histograms = new Map<string, Histogram>();
  private enabled = true;

  /** Records nothing from now on (METRICS_ENABLED=0), hot-path series included. */
  disable(): void {
    this.enabled = false;
  }

  describe(name: string, help: string): void {
    this.help.set(name, help);
  }

  inc(name: string, labels: Labels = {}, by = 1): void {
    if (!this.enabled) return;
    this.counterOf(name, labels).inc(labels, by);
  }

  /**
   * A counter series fixed up front, for hot paths: an increment adds to the series' value
   * in prom-client's store directly (prom-client's `inc` validates the labels and builds
   * their key string on every call; bench/RESULTS.md, ops). Renders the same.
   */
  counter(name: string, labels: Labels = {}): () => void {
    const metric = this.counterOf(name, labels);
    const stored = new StoredSeries<{ value: number; labels?: Labels }>(metric, labels, () =>
      metric.inc(labels, 0),
    );
    return () => {
      if (!this.enabled) return;
      const series = stored.get();
      if (series) series.value += 1;
      else metric.inc(labels); // prom-client's own error
    };
  }

  set(name: string, value: number, labels: Labels = {}): void {
    if (!this.enabled) return;
    this.gaugeOf(name, labels).set(labels, value);
  }

  /** One observation (in seconds for durations) of a histogram. */
  observe(name: string, labels: Labels, value: number, buckets = LATENCY_BUCKETS): void {
    if (!this.enabled) return;
    this.histogramOf(name, labels, buckets).observe(labels, value);
  }

  /**
   * A histogram series fixed up front, for hot paths. An observation adds to the series'
   * values in prom-client's store directly: prom-client's own `observe` re-validates the
   * labels, builds their key string and converts the bucket bound to a property name on
   * every call, most of its cost (bench/RESULTS.md, ops). Same buckets, sum and count, so
   * /metrics renders the same; after a registry reset the series is found again.
   */
  histogram(name: string, labels: Labels, buckets = LATENCY_BUCKETS): (value: number) => void {
    const metric = this.histogramOf(name, labels, buckets);
    const stored = new StoredSeries<HistogramSeries>(metric, labels, () => metric.zero(labels));
    const bounds = (metric as unknown as { upperBounds: readonly number[] }).upperBounds;
    const keys = bounds.map(String);
    return (value) => {
      if (!this.enabled) return;
      const series = Number.isFinite(value) ? stored.get() : undefined;
      if (!series) return metric.observe(labels, value); // prom-client's error
      series.sum += value;
      series.count += 1;
      for (let i = 0; i < bounds.length; i++)
        if (value <= bounds[i]) {
          series.bucketValues[keys[i]] += 1;
          break;
        }
    };
  }

  /** A gauge computed when /metrics is scraped. */
  gaugeCollected(
    name: string,
    help: string,
    collect: (set: (value: number, labels?: Labels) => void) => void | Promise<void>,
    labelNames: string[] = [],
  ): void {
    if (this.gauges.has(name)) return;
    const gauge: Gauge = new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        await collect((value, labels = {}) => gauge.set(labels, value));
      },
    });
    this.gauges.set(name, gauge);
  }

  /** The current value of a counter or gauge series (tests and diagnostics). */
  value(name: string, labels: Labels = {}): number {
    const metric = this.counters.get(name) ?? this.gauges.get(name);
    if (!metric) return 0;
    // prom-client keeps the series in `hashMap` (read synchronously; `get()` is async)
    const series = (
      metric as unknown as { hashMap: Record<string, { value: number; labels: Labels }> }
    ).hashMap;
    const wanted = Object.entries(labels);
    for (const entry of Object.values(series)) {
      const have = entry.labels ?? {};
      if (Object.keys(have).length === wanted.length && wanted.every(([k, v]) => have[k] === v))
        return entry.value;
    }
    return 0;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private counterOf(name: string, labels: Labels): Counter {
    let metric = this.counters.get(name);
    if (!metric) {
      metric = new Counter({
        name,
        help: this.help.get(name) ?? name,
        labelNames: Object.keys(labels),
        registers: [this.registry],
      });
      this.counters.set(name, metric);
    }
    return metric;
  }

  private gaugeOf(name: string, labels: Labels): Gauge {
    let metric = this.gauges.get(name);
    if (!metric) {
      metric = new Gauge({
        name,
        help: this.help.get(name) ?? name,
        labelNames: Object.keys(labels),
        registers: [this.registry],
      });
      this.gauges.set(name, metric);
    }
    return metric;
  }

  private histogramOf(name: string, labels: Labels, buckets: number[]): Histogram {
    let metric = this.histograms.get(name);
    if (!metric) {
      metric = new Histogram({
        name,
        help: this.help.get(name) ?? name,
        labelNames: Object.keys(labels),
        buckets,
        registers: [this.registry],
      });
      this.histograms.set(name, metric);
    }
    return metric;
  }
}

/**
 * One series of a prom-client metric as its store keeps it (a value of `hashMap`), found by
 * its labels once (`create` makes it when missing) and again after the store is replaced (a
 * registry reset). Undefined when prom-client does not create it (its own error then).
 */
class StoredSeries<S extends { labels?: Labels }> {
  private map?: Record<string, S>;
  private series?: S;

  constructor(
    private readonly metric: object,
    private readonly labels: Labels,
    private readonly create: () => void,
  ) {}

  get(): S | undefined {
    const store = this.metric as { hashMap: Record<string, S> };
    if (store.hashMap === this.map && this.series) return this.series;
    this.map = store.hashMap;
    this.series = this.find();
    if (!this.series) {
      this.create();
      this.series = this.find();
    }
    return this.series;
  }

  private find(): S | undefined {
    return Object.values(this.map ?? {}).find((s) => sameLabels(s.labels ?? {}, this.labels));
  }
}

function sameLabels(a: Labels, b: Labels): boolean {
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}
