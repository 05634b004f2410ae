// node:fs plus the one globSync use of @modelcontextprotocol/conformance 0.1.16 (its
// tier-check command reads `**/checks.json` under a results directory).
import { readdirSync } from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export { default } from 'node:fs';

export function globSync(pattern, options = {}) {
  const match = /^\*\*\/([^*?[\]{}/]+)$/.exec(pattern);
  if (!match) throw new Error(`globSync shim supports only "**/<file name>", got ${pattern}`);
  const cwd = options.cwd ?? process.cwd();
  return readdirSync(cwd, { recursive: true })
    .map(String)
    .filter((file) => path.basename(file) === match[1]);
}
