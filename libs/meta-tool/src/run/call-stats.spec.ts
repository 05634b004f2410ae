import { CallStatsBatch } from './call-stats';
import type { CallStats } from '../store/generated-tool-stats.repository';

describe('CallStatsBatch', () => {
  it('adds up the calls and errors of each tool into one write per flush', async () => {
    const written: CallStats[] = [];
    const batch = new CallStatsBatch((s) => Promise.resolve(void written.push({ ...s })));
    batch.count('acme', 'top_customers');
    batch.count('acme', 'top_customers', 'run: boom');
    batch.count('acme', 'top_customers', `run: ${'x'.repeat(600)}`);
    batch.count('globex', 'top_customers');
    await batch.close();
    expect(written).toHaveLength(2);
    expect(written[0]).toMatchObject({ tenantId: 'acme', name: 'top_customers', calls: 3 });
    expect(written[0].errors).toBe(2);
    expect(written[0].lastError!.length).toBeLessThanOrEqual(500);
    expect(written[1]).toEqual({ tenantId: 'globex', name: 'top_customers', calls: 1, errors: 0 });
    await batch.flush();
    expect(written).toHaveLength(2);
  });

  it('drops a failed write and goes on with the next tool', async () => {
    const written: string[] = [];
    const batch = new CallStatsBatch((s) =>
      s.name === 'broken'
        ? Promise.reject(new Error('down'))
        : Promise.resolve(void written.push(s.name)),
    );
    batch.count('acme', 'broken');
    batch.count('acme', 'fine');
    await expect(batch.close()).resolves.toBeUndefined();
    expect(written).toEqual(['fine']);
  });
});
