import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startHeaderProxy } from '../support/header-proxy';
import type { HeaderProxy } from '../support/header-proxy';
import { inspectorCli } from '../support/inspector';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';

const run = promisify(execFile);

/**
 * The MCP Inspector 2.x CLI (issue 29, clients): `--protocol-era modern` against the real
 * server lists and calls on 2026-07-28 (server/discover, no initialize, no session), and
 * `--protocol-era legacy` still takes the 2025 handshake. A recording proxy in front of the
 * gateway shows what the Inspector sent.
 */
describe('MCP Inspector CLI 2.x in its 2026-07-28 mode (e2e)', () => {
  let gw: RunningGateway;
  let proxy: HeaderProxy;
  let inspector: { node: string; cli: string };
  let home: string;
  const seen: Array<{ method: string; mcpMethod?: string; session?: string; version?: string }> =
    [];

  beforeAll(async () => {
    inspector = await inspectorCli(path.resolve(__dirname, '../..'));
    gw = await startGateway();
    proxy = await startHeaderProxy(`${gw.baseUrl}`, {}, (method, _path, headers) =>
      seen.push({
        method,
        mcpMethod: headers['mcp-method'] as string | undefined,
        session: headers['mcp-session-id'] as string | undefined,
        version: headers['mcp-protocol-version'] as string | undefined,
      }),
    );
    // the Inspector keeps a catalog under $HOME: a throwaway one, never the user's
    home = await mkdtemp(path.join(tmpdir(), 'inspector-home-'));
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await gw?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen.length = 0;
  });

  /** The Inspector CLI against the gateway through the recording proxy, as `token`. */
  function runCli(token: string, era: string, ...args: string[]) {
    return run(
      inspector.node,
      [
        inspector.cli,
        '--cli',
        `${proxy.url}/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        '--protocol-era',
        era,
        '--format',
        'json',
        ...args,
      ],
      { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json') } },
    );
  }

  async function inspect(era: string, ...args: string[]): Promise<unknown> {
    const token = await mintToken({ tenant: 'acme', user: 'alice', roles: ['analyst'] });
    const { stdout } = await runCli(token, era, ...args);
    // --format json: one object, the answer under `result`
    return (JSON.parse(stdout) as { result: unknown }).result;
  }

  it('modern: tools/list and tools/call on 2026-07-28, without initialize or a session', async () => {
    const listed = (await inspect('modern', '--method', 'tools/list')) as {
      tools: Array<{ name: string }>;
    };
    expect(listed.tools.map((t) => t.name)).toContain('query_report_sales_by_region');
    const called = (await inspect(
      'modern',
      '--method',
      'tools/call',
      '--tool-name',
      'query_report_sales_by_region',
      '--tool-arg',
      'region=east',
    )) as { structuredContent: { rows: Array<{ region: string }> } };
    expect(called.structuredContent.rows.map((r) => r.region)).toEqual(['east']);
    const methods = seen.map((s) => s.mcpMethod);
    expect(methods).toEqual(
      expect.arrayContaining(['server/discover', 'tools/list', 'tools/call']),
    );
    expect(methods).not.toContain('initialize');
    expect(seen.filter((s) => s.session !== undefined)).toEqual([]);
    expect(seen.filter((s) => s.method === 'POST').map((s) => s.version)).toEqual(
      seen.filter((s) => s.method === 'POST').map(() => '2026-07-28'),
    );
  });

  it('legacy: the same CLI takes the 2025 handshake and a session', async () => {
    const listed = (await inspect('legacy', '--method', 'tools/list')) as {
      tools: Array<{ name: string }>;
    };
    expect(listed.tools.map((t) => t.name)).toContain('query_report_sales_by_region');
    expect(seen.some((s) => s.session !== undefined)).toBe(true);
  });

  it('a refused token: the CLI fails and says so, with nothing on stdout', async () => {
    await expect(runCli('not-a-token', 'modern', '--method', 'tools/list')).rejects.toMatchObject({
      code: expect.any(Number),
      stdout: '',
      // the 401's WWW-Authenticate sends it to OAuth, which a run without a TTY refuses
      stderr: expect.stringContaining('"code":"auth_required"'),
    });
    expect(seen.map((s) => s.mcpMethod)).not.toContain('tools/call');
  });
});
