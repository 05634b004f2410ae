/**
 * Metric series (prom-client children, one per tuple of label values) found by their label
 * values through nested maps: no key string is built or hashed per request, and nothing is
 * allocated once a tuple has been seen. `make` creates the series of a new tuple.
 */
export class SeriesCache<T> {
  private readonly root = new Map<string, unknown>();

  constructor(private readonly make: (values: readonly string[]) => T) {}

  get(values: readonly string[]): T {
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

/** `2xx` for 200 etc., without a new string per request. */
export function statusClass(status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`;
}

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
