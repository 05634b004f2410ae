import { cleanupOnSignals, Cleanup } from './cleanup';
import { createSeededDatabase, sweepRun } from './database';
import { clearRun } from './redis';
import { RUN_ID } from './settings';

/**
 * A bench script of its own (not a `run.ts` scenario): a cleanup that also runs on Ctrl-C and
 * sweeps whatever this run left (databases, roles, Redis keys), and the seeded template database
 * its gateways start from. If seeding fails, what was made is removed before the error goes on.
 */
export async function startStandaloneRun(): Promise<{ cleanup: Cleanup; template: string }> {
  const cleanup = new Cleanup();
  cleanupOnSignals(cleanup);
  cleanup.add('sweep', async () => {
    await sweepRun(RUN_ID);
    await clearRun(RUN_ID);
  });
  const template = `gw_bench_${RUN_ID}`;
  try {
    await createSeededDatabase(cleanup, template);
  } catch (err) {
    await cleanup.runAll();
    throw err;
  }
  return { cleanup, template };
}
