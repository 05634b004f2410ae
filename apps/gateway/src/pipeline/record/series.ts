/**
 * Metric series (prom-client children, one per tuple of label values) found by their label
 * values through nested maps: no key string is built or hashed per request, and nothing is
 * allocated once a tuple has been seen. `make` creates the series of a new tuple.
 */
export class SeriesCache<T> {
  private readonly root = new Map<string, unknown>();
  /** the last tuple asked for and its series: a run of alike requests skips the maps */
  private lastValues: readonly string[] = [];
  private lastSeries?: T;

  constructor(private readonly make: (values: readonly string[]) => T) {}

  get(values: readonly string[]): T {
    const last = this.lastValues;
    if (this.lastSeries !== undefined && sameValues(last, values)) return this.lastSeries;
    const series = this.find(values);
    this.lastValues = [...values];
    this.lastSeries = series;
    return series;
  }

  private find(values: readonly string[]): T {
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as Map<string, unknown> | undefined;
      if (!next) {
        next = new Map<string, unknown>();
        level.set(values[i], next);
      }
      level = next;
    }
    let series = level.get(values[last]) as T | undefined;
    if (series === undefined) {
      series = this.make(values);
      level.set(values[last], series);
    }
    return series;
  }
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `2xx` for 200 etc., without a new string per request. */
export function statusClass(status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`;
}

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
