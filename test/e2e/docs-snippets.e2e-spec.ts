import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const ROOT = path.resolve(__dirname, '../..');
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

/** The first ```js block after `heading` in a docs page, as written there. */
function snippet(page: string, heading: string): string {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`${page} has no heading "${heading}"`);
  const block = /```js\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`${page}: no js block under "${heading}"`);
  return block[1];
}

/**
 * Snippets of the docs run as written (issue #39: the Tasks snippet left out the call itself, so
 * a client had to read a test to learn the `_meta` keys).
 */
describe('docs snippets run as written (e2e)', () => {
  let gw: RunningGateway;
  // in an ignored folder of the repository, so the snippet's imports resolve as a user's would
  const dir = path.join(ROOT, '.data', `snippets-${randomBytes(4).toString('hex')}`);
  beforeAll(async () => {
    // every report call of a tasks client becomes a task
    gw = await startGateway({ MCP_TASK_AFTER_MS: '0' });
    mkdirSync(dir, { recursive: true });
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await gw?.close();
  });

  it('docs/clients/mcp.md "Long reports as tasks": the program runs a report as a task to its rows', async () => {
    const file = path.join(dir, 'tasks.mjs');
    writeFileSync(file, snippet('docs/clients/mcp.md', '## Long reports as tasks'));
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      env: {
        PATH: process.env.PATH ?? '',
        GATEWAY_URL: gw.baseUrl,
        TOKEN: await mintToken(alice),
        TOOL: 'query_report_orders_by_status',
        ARGS: '{}',
      },
      timeout: 60_000,
    });
    const rows = JSON.parse(stdout) as Array<Record<string, unknown>>;
    const rest = await gw.request('/v1/tools/query_report_orders_by_status/call', {
      method: 'POST',
      as: alice,
      json: { arguments: {} },
    });
    const expected = ((await rest.json()) as { result: { rows: unknown[] } }).result.rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows).toEqual(expected);
  });
});
