import { spawn } from 'node:child_process';
import { freePort } from '../cluster/cluster';
import { measureAfterGc } from './gc-probe';

describe('measureAfterGc (a real Node process with the inspector on)', () => {
  it('collects the garbage a process made and reports what it still holds', async () => {
    const port = await freePort();
    // holds 40 MB on purpose and makes garbage on every tick
    const child = spawn(
      process.execPath,
      [
        `--inspect=127.0.0.1:${port}`,
        '-e',
        'globalThis.kept = new Array(5 * 2 ** 20).fill(1.5); setInterval(() => JSON.stringify(Array.from({ length: 1e5 }, (_, i) => ({ i }))), 5); process.stdout.write("ready\\n");',
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      const m = await measureAfterGc(port);
      expect(m.heapMb).toBeGreaterThan(40);
      expect(m.heapMb).toBeLessThan(200);
      expect(m.rssMb).toBeGreaterThan(m.heapMb);
      expect(m.heapTotalMb).toBeGreaterThanOrEqual(m.heapMb);
      expect(m.externalMb).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('fails clearly when nothing listens on the port', async () => {
    const port = await freePort();
    await expect(measureAfterGc(port, 2000)).rejects.toThrow();
  });
});
