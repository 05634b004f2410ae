import { sql } from 'kysely';
import { contained } from '../support/containment';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE } from '../support/mcp';

// one user, two tokens with different roles (e.g. a role granted or taken away mid-session)
const asAnalyst: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const asFinance: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['finance'] };
// an allowed Origin keeps the request off the warm-list fast lane: the SDK answers it
const ORIGIN = { origin: 'http://localhost:6274' };

/**
 * Fault: concurrent requests of one user in one MCP session, each with its own token. Each
 * must run with its own verified principal, never with the one another request brought.
 */
describe('faults: the principal of an MCP request is its own', () => {
  let gw: RunningGateway;
  let session: string;

  beforeAll(async () => {
    gw = await startGateway();
    const res = await fetch(`${gw.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_ACCEPT,
        'content-type': 'application/json',
        authorization: `Bearer ${await mintToken(asAnalyst)}`,
      },
      body: JSON.stringify(MCP_INITIALIZE),
    });
    session = res.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
  afterAll(() => gw.close());

  async function rpc(who: TokenClaims, id: number, method: string, params?: unknown) {
    const res = await fetch(`${gw.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_ACCEPT,
        ...ORIGIN,
        'content-type': 'application/json',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
        authorization: `Bearer ${await mintToken(who)}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }),
    });
    const { status, text } = await contained(res);
    expect(status).toBe(200);
    return JSON.parse(text) as {
      result?: { tools?: Array<{ name: string }>; isError?: boolean };
      error?: { message: string };
    };
  }

  const names = (body: Awaited<ReturnType<typeof rpc>>) =>
    (body.result?.tools ?? []).map((t) => t.name).sort();

  it('concurrent tools/list requests with different roles each see their own tools', async () => {
    const analystTools = names(await rpc(asAnalyst, 10, 'tools/list'));
    const financeTools = names(await rpc(asFinance, 11, 'tools/list'));
    expect(analystTools).not.toEqual(financeTools);
    for (let round = 0; round < 5; round++) {
      // a catalog change makes the next lists read Postgres: requests overlap across that wait
      await sql`UPDATE gateway.reports SET description = description || ' '
                WHERE tenant_id = 'acme' AND id = 'low_stock'`.execute(gw.database.handle.db);
      const rounds = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          rpc(i % 2 ? asFinance : asAnalyst, 100 + i, 'tools/list').then((body) => ({
            i,
            tools: names(body),
          })),
        ),
      );
      for (const { i, tools } of rounds) expect(tools).toEqual(i % 2 ? financeTools : analystTools);
      // and nothing one request saw was kept for the other's role
      expect(names(await rpc(asAnalyst, 1000, 'tools/list'))).toEqual(analystTools);
      expect(names(await rpc(asFinance, 1001, 'tools/list'))).toEqual(financeTools);
    }
  });

  it('a tools/call runs with the roles of its own token, not those of a concurrent request', async () => {
    const financeOnly = 'query_report_revenue_by_month';
    await sql`UPDATE gateway.reports SET description = description || ' '
              WHERE tenant_id = 'acme' AND id = 'low_stock'`.execute(gw.database.handle.db);
    const rounds = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        rpc(i % 2 ? asFinance : asAnalyst, 200 + i, 'tools/call', {
          name: financeOnly,
          arguments: { year: 2025 },
        }).then((body) => ({ i, body })),
      ),
    );
    for (const { i, body } of rounds) {
      if (i % 2) expect(body.result?.isError).toBeFalsy();
      else expect(body.error?.message ?? '').toMatch(/no tool named/);
    }
  });
});
