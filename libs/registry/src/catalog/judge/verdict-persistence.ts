import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { TemplateProblem } from '@app/templates';
import type { VerdictStore } from './admission-verdicts';

/** verdicts written to Postgres per statement */
const WRITE_BATCH = 1000;
/** at most this many verdicts wait to be written; beyond, new ones are only kept in memory */
const MAX_UNWRITTEN = 20_000;

/**
 * The SQL guard's verdicts in Postgres (gateway.admission_verdicts), shared by instances:
 * reads for a batch of template hashes, and writes batched after the current slice. A
 * failed read or write is warned about once and never fails admission: the templates are
 * judged here instead. Without a store it reads nothing and keeps nothing.
 */
export class VerdictPersistence {
  private readonly logger = new Logger('CatalogStore');
  /** verdicts judged here and not yet written, by tenant */
  private readonly unwritten = new Map<string, Map<string, TemplateProblem[]>>();
  private unwrittenCount = 0;
  private writing?: Promise<void>;
  private warned = false;

  constructor(private readonly store: VerdictStore | null) {}

  get enabled(): boolean {
    return this.store !== null;
  }

  /** The persisted verdicts of these hashes (those found); none when the read fails. */
  async read(tenantId: string, hashes: readonly string[]): Promise<Map<string, TemplateProblem[]>> {
    if (!this.store || hashes.length === 0) return new Map();
    try {
      return await this.store.read(tenantId, hashes);
    } catch (err) {
      this.warn('read', err);
      return new Map();
    }
  }

  /** Queues a verdict judged here to be written (once per tenant and hash while queued). */
  persist(tenantId: string, hash: string, problems: TemplateProblem[]): void {
    if (!this.store || this.unwrittenCount >= MAX_UNWRITTEN) return;
    let forTenant = this.unwritten.get(tenantId);
    if (!forTenant) this.unwritten.set(tenantId, (forTenant = new Map()));
    if (forTenant.has(hash)) return;
    forTenant.set(hash, problems);
    this.unwrittenCount++;
    this.writing ??= this.writeAll(this.store).finally(() => {
      this.writing = undefined;
    });
  }

  /** Resolves when every queued verdict was written (or its write failed). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(store: VerdictStore): Promise<void> {
    // after the current slice: verdicts judged together are written together
    await yieldToLoop();
    while (this.unwritten.size > 0) {
      const [tenantId, verdicts] = this.unwritten.entries().next().value!;
      const batch = [...verdicts].slice(0, WRITE_BATCH);
      for (const [hash] of batch) verdicts.delete(hash);
      if (verdicts.size === 0) this.unwritten.delete(tenantId);
      this.unwrittenCount -= batch.length;
      try {
        await store.write(
          tenantId,
          batch.map(([hash, problems]) => ({ hash, problems })),
        );
      } catch (err) {
        this.warn('write', err);
      }
    }
  }

  private warn(what: 'read' | 'write', err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(
      `persisted SQL guard verdicts could not be ${what === 'read' ? 'read' : 'written'} (templates are judged here instead): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
