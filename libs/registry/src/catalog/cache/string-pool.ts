import type { StoredReport } from '../model/catalog-records';

/**
 * One copy of the values a big tenant's reports repeat: the tenant id, categories, status,
 * the timestamps of bulk writes, and identical filters and fields and lists of them (shared: report
 * metadata is never changed once read). Postgres sends every row's copy; 100,000 reports
 * keep one.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();
  private readonly objects = new Map<string, unknown>();

  string(value: string): string {
    const held = this.strings.get(value);
    if (held !== undefined) return held;
    this.strings.set(value, value);
    return value;
  }

  private object<T>(value: T): T {
    const key = JSON.stringify(value);
    const held = this.objects.get(key) as T | undefined;
    if (held !== undefined) return held;
    this.objects.set(key, value);
    return value;
  }

  /** One copy of an equal list of filters or fields, of equal members. */
  private list<T>(items: T[]): T[] {
    return items.length === 0 ? EMPTY : this.object(items.map((item) => this.object(item)));
  }

  /** The report with its repeated values replaced by the pool's copies. */
  report(stored: StoredReport): StoredReport {
    const m = stored.metadata;
    return {
      status: this.string(stored.status) as StoredReport['status'],
      updatedAt: this.string(stored.updatedAt),
      metadata: {
        ...m,
        tenantId: this.string(m.tenantId),
        category: this.string(m.category),
        filters: this.list(m.filters),
        fields: this.list(m.fields),
      },
    };
  }
}

const EMPTY: never[] = [];
