import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { node22 } from './node22';

const run = promisify(execFile);

/** The MCP Inspector release whose CLI speaks 2026-07-28 (`--protocol-era modern`). */
export const INSPECTOR_VERSION = '2.12.0';

/**
 * The MCP Inspector 2.x CLI (`@modelcontextprotocol/inspector --cli`), with the Node 22 that
 * runs it. Its `engines` is `node >= 22.19`, so it cannot be a dependency of a project on Node
 * 20 (npm would warn EBADENGINE on every install); it is installed from the npm registry on
 * first use into `.data/inspector-<version>` (ignored) by npm running on that Node 22, and
 * reused after. The 0.16.8 CLI (a dev dependency) stays for the 2025 era.
 */
export async function inspectorCli(root: string): Promise<{ node: string; cli: string }> {
  const node = await node22(root);
  const dir = path.join(root, '.data', `inspector-${INSPECTOR_VERSION}`);
  const cli = path.join(
    dir,
    'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
  );
  if (existsSync(cli)) return { node, cli };
  const staging = `${dir}.${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(path.join(staging, 'package.json'), '{"private": true}\n');
  // `npm` starts with `#!/usr/bin/env node`: with Node 22 first on PATH, npm itself runs on it
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
    ],
    {
      cwd: staging,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH ?? ''}` },
    },
  );
  // another test file may have won the race: keep the first complete one
  await rename(staging, dir).catch(() => rm(staging, { recursive: true, force: true }));
  if (!existsSync(cli))
    throw new Error(`no CLI in @modelcontextprotocol/inspector@${INSPECTOR_VERSION}`);
  return { node, cli };
}
