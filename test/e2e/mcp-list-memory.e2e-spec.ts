import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'kysely';
import { CatalogService, LIST_BODIES_MAX_BYTES } from '@app/registry';
import { McpSessions } from '../../apps/gateway/src/mcp/session/mcp-sessions.service';
import { changeCatalog, mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

/**
 * The soak's memory growth (bench/SOAK.md, issue #21): every catalog change left the MCP
 * lists of the old catalog version in the replica's list cache, which was bounded by count
 * only (5,000 lists). Since #15 MCP lists are the shared list bodies (REST and MCP, L1 + L2),
 * held once as their bytes within a byte bound; and a newer catalog version's first list
 * drops the tenant's lists of older versions, which nobody can ask for again.
 */
describe('MCP tool lists held in memory (e2e, real Postgres)', () => {
  let gw: RunningGateway;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    gw = await startGateway();
    transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(alice)}` } },
    });
    client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close().catch(() => undefined);
    await gw.close();
  });

  it('holds no list of a superseded catalog version, and counts what it holds in bytes', async () => {
    const lists = gw.app.get(CatalogService).lists;
    const versions = 5;
    let jsonBytes = 0;
    const held: Array<{ size: number; bytes: number }> = [];
    for (let i = 0; i < versions; i++) {
      await changeCatalog(gw, 'acme', (db) =>
        sql`UPDATE gateway.reports SET description = ${`Sales by region, revision ${i}`}
            WHERE tenant_id = 'acme' AND id = 'sales_by_region'`.execute(db),
      );
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'query_report_sales_by_region')?.description).toContain(
        `revision ${i}`,
      );
      jsonBytes = Buffer.byteLength(JSON.stringify(tools));
      held.push({ size: lists.size, bytes: lists.heldBytes });
    }
    // what is held does not grow with the versions: only the current version's lists remain
    // (the session's list, and whatever else this version made), the same after five changes
    // as after one ...
    expect(held.map((h) => h.size)).toEqual(held.map(() => held[0].size));
    expect(held[versions - 1].bytes).toBeLessThan(held[0].bytes + versions * 100);
    // ... and the lists count their bytes (the list body is all that is held) within the bound
    expect(lists.heldBytes).toBeGreaterThanOrEqual(jsonBytes);
    expect(lists.heldBytes).toBeLessThanOrEqual(LIST_BODIES_MAX_BYTES);
  });

  it('keeps nothing per request a session has answered (the SDK keeps JSON answers: typescript-sdk#2559)', async () => {
    const session = gw.app.get(McpSessions).get(transport.sessionId!)!;
    const web = (
      session.transport as unknown as {
        _webStandardTransport: { _streamMapping: Map<string, unknown> };
      }
    )._webStandardTransport;
    // what a session holds between requests: its notification stream, if open
    const between = web._streamMapping.size;
    expect(between).toBeLessThanOrEqual(1);
    // ping is answered by the SDK itself (no fast lane), each in JSON-response mode
    for (let i = 0; i < 30; i++) {
      await client.ping();
      await client.listTools();
    }
    await Promise.all(Array.from({ length: 10 }, () => client.ping()));
    expect(web._streamMapping).toBeInstanceOf(Map);
    expect(web._streamMapping.size).toBe(between);
  });
});
