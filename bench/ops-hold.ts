/**
 * Starts the ops variants (OPS_SPLIT_VARIANTS file, as ops-split reads it) on a fresh demo
 * database and keeps them running for hand-driven measurements (autocannon, perf, /proc);
 * prints one JSON line per gateway ({ name, url, pid, auth }); Ctrl-C (SIGINT) cleans up.
 * `npx tsx bench/ops-hold.ts`
 */
import { startStandaloneRun } from './lib/standalone';
import { readFileSync } from 'node:fs';
import { DemoFixture } from './lib/demo';
import { GatewayProcess } from './lib/gateway';
import { OPS_OFF, OPS_ON } from './lib/ops-settings';
import { RUN_ID } from './lib/settings';
import { bearer } from './lib/tokens';

interface Variant {
  name: string;
  on?: boolean;
  env?: Record<string, string>;
  main?: string;
}

async function main(): Promise<void> {
  const { cleanup, template } = await startStandaloneRun();
  const demo = new DemoFixture(cleanup, RUN_ID, template);
  const database = await demo.database();
  const redisPrefix = demo.redisPrefix();
  const auth = await bearer({ tenant: 'acme', sub: 'bench-ops', roles: ['analyst'] });
  const file = process.env.OPS_SPLIT_VARIANTS ?? '';
  const variants = JSON.parse(readFileSync(file, 'utf8')) as Variant[];
  for (const [i, v] of variants.entries()) {
    const g = await GatewayProcess.start(cleanup, {
      name: `ops-hold-${i}`,
      database,
      redisPrefix,
      env: { ...(v.on ? OPS_ON : OPS_OFF), ...v.env },
      main: v.main,
    });
    await g.client.ok('/v1/tools?format=openai', { headers: auth });
    console.log(JSON.stringify({ name: v.name, url: g.url, pid: g.pid, auth: auth.authorization }));
  }
  console.log('ready');
  await new Promise(() => undefined);
}

void main();
