import type { TemplateProblem } from '@app/templates';
import { Logger } from '@nestjs/common';
import type { VerdictStore } from './template-verdicts';
import { VerdictPersistence } from './template-verdicts';

const problem: TemplateProblem[] = [{ rule: 'table', message: 'payroll is not allowed' }];

/** Verdicts in memory; the writes asked for are recorded. */
class FakeStore implements VerdictStore {
  readonly writes: Array<{ tenantId: string; hashes: string[] }> = [];
  readonly held = new Map<string, TemplateProblem[]>([['h1', problem]]);
  failure: Error | undefined;

  async read(_tenantId: string, hashes: readonly string[]) {
    if (this.failure) throw this.failure;
    return new Map([...this.held].filter(([hash]) => hashes.includes(hash)));
  }

  async write(tenantId: string, verdicts: ReadonlyArray<{ hash: string }>) {
    if (this.failure) throw this.failure;
    this.writes.push({ tenantId, hashes: verdicts.map((v) => v.hash) });
  }
}

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

describe('VerdictPersistence', () => {
  it('reads the verdicts found among the hashes asked for', async () => {
    const persistence = new VerdictPersistence(new FakeStore());
    expect(await persistence.read('acme', ['h1', 'h2'])).toEqual(new Map([['h1', problem]]));
  });

  it('writes queued verdicts together, once per hash, after the current slice', async () => {
    const store = new FakeStore();
    const persistence = new VerdictPersistence(store);
    persistence.persist('acme', 'h2', []);
    persistence.persist('acme', 'h2', []);
    persistence.persist('acme', 'h3', problem);
    persistence.persist('globex', 'h4', []);
    expect(store.writes).toEqual([]);
    await persistence.flushed();
    expect(store.writes).toEqual([
      { tenantId: 'acme', hashes: ['h2', 'h3'] },
      { tenantId: 'globex', hashes: ['h4'] },
    ]);
  });

  it('never fails admission when Postgres does: a read finds nothing, a write is dropped', async () => {
    const store = new FakeStore();
    store.failure = new Error('connection refused');
    const persistence = new VerdictPersistence(store);
    expect(await persistence.read('acme', ['h1'])).toEqual(new Map());
    persistence.persist('acme', 'h2', []);
    await expect(persistence.flushed()).resolves.toBeUndefined();
    expect(store.writes).toEqual([]);
  });

  it('without a store reads nothing and keeps nothing', async () => {
    const persistence = new VerdictPersistence(null);
    expect(persistence.enabled).toBe(false);
    expect(await persistence.read('acme', ['h1'])).toEqual(new Map());
    persistence.persist('acme', 'h2', []);
    await expect(persistence.flushed()).resolves.toBeUndefined();
  });
});
