import { SandboxPool } from '@app/meta-tool';
import type { SandboxJob } from '@app/meta-tool';

/**
 * The outer layers hold even if the engine (layer 1) were broken out of: a hostile child
 * program, running with the same flags and wrapper as the real one, tries to reach Postgres
 * and to see the gateway's process. What it manages must match what /healthz claims.
 */
describe('the sandbox child namespaces (faults)', () => {
  const postgresPort = Number(new URL(process.env.TEST_DATABASE_URL!).port || 5432);
  const probe = `
    process.on('message', (m) => {
      let signal;
      try { process.kill(${process.pid}, 0); signal = 'gateway visible'; } catch (e) { signal = 'gateway ' + e.code; }
      const done = (net) => {
        process.send({ type: 'log', job: m.job, level: 'info', text: net + '; ' + signal });
        process.send({ type: 'failed', job: m.job, stage: 'run', message: 'probed' });
      };
      const socket = require('net').connect(${postgresPort}, '127.0.0.1');
      socket.on('connect', () => { socket.destroy(); done('postgres reached'); });
      socket.on('error', (e) => done('postgres ' + e.code));
    });
    process.send({ type: 'ready' });`;

  it('a child that escaped the engine reaches neither Postgres nor the gateway where /healthz says so', async () => {
    const pool = new SandboxPool({
      size: 1,
      perTenant: 1,
      queueWaitMs: 1000,
      maxQueue: 10,
      recycleAfter: 10,
      childHeapMb: 64,
      isolateNetwork: true,
      workerSource: probe,
      limits: {
        memoryBytes: 32 << 20,
        stackBytes: 256 << 10,
        cpuMs: 1000,
        outputBytes: 1024,
        maxHostCalls: 1,
        maxLogLines: 5,
      },
    });
    const lines: string[] = [];
    const job: SandboxJob = {
      tenantId: 'acme',
      name: 'probe',
      source: '',
      user: {},
      timeoutMs: 5000,
      onHost: async () => '[]',
      onLog: (_, text) => lines.push(text),
    };
    try {
      expect(await pool.run(job)).toEqual({ ok: false, stage: 'run', message: 'probed' });
      const layers = pool.layers();
      const [net, gateway] = lines[0].split('; ');
      if (layers.network_namespace) expect(net).toMatch(/^postgres E[A-Z]+$/);
      else expect(net).toBe('postgres reached');
      expect(gateway).toBe(layers.pid_namespace ? 'gateway ESRCH' : 'gateway visible');
    } finally {
      pool.close();
    }
  });
});
