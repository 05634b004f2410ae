import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import integrationSetup from '../global-setup';
import { CHROMIUM } from './chromium-path';

/** Before the browser tests: the built console and gateway (built when stale), Chromium, the test servers. */
export default async function globalSetup(): Promise<void> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `the browser tests drive Debian's chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`,
    );
  execFileSync(
    process.execPath,
    // the console for every browser test; the gateway for the one that runs it as `npm start` does
    [path.resolve(__dirname, '../../scripts/build-if-needed.js')],
    { stdio: 'inherit' },
  );
  await integrationSetup();
}
