import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

/**
 * The official SDK v2 client (`@modelcontextprotocol/client` 2.4.0) against two replicas
 * (issue 29): with version negotiation it takes 2026-07-28 (no session), lists and calls, and
 * hears a report inserted by SQL on a listen stream held by the other replica; without it, it
 * falls back to the 2025 handshake and a session, as today.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

describe('SDK v2 client (e2e)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startGateway({}, db);
    b = await startGateway({}, db);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  async function connect(gw: RunningGateway, mode: 'auto' | 'legacy') {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(alice)}` } },
    });
    const client = new Client(
      { name: 'sdk-v2-e2e', version: '1' },
      { versionNegotiation: { mode } },
    );
    await client.connect(transport);
    return client;
  }

  it('negotiates 2026-07-28, lists, calls, and hears a change on a listen stream on the other replica', async () => {
    const onA = await connect(a, 'auto');
    const onB = await connect(b, 'auto');
    try {
      expect(onA.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(onA.getServerCapabilities()?.tools).toBeDefined();
      const { tools } = await onA.listTools();
      expect(tools.map((t) => t.name)).toContain('query_report_sales_by_region');
      const called = await onA.callTool({
        name: 'query_report_sales_by_region',
        arguments: { region: 'east' },
      });
      expect(
        (called.structuredContent as { rows: Array<{ region: string }> }).rows.map((r) => r.region),
      ).toEqual(['east']);

      const changed = new Promise<void>((resolve) =>
        onB.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
      );
      const subscription = await onB.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
      await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
                VALUES ('acme', 'sdk_v2_added', 'SDK v2', 'inserted by SQL', 'SELECT 1 AS one', 'sales')`.execute(
        db.handle.db,
      );
      await changed;
      await subscription.close();
      // B had not listed before: its first list shows the new tool
      const after = await onB.listTools();
      expect(after.tools.map((t) => t.name)).toContain('query_report_sdk_v2_added');
    } finally {
      await onA.close();
      await onB.close();
    }
  });

  it('without negotiation it speaks 2025 through a session, as today', async () => {
    const client = await connect(a, 'legacy');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
