import { DEMO_CONTEXTS } from '@app/db';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv from 'ajv';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * The smaller MCP details of issue 18 (scope 9), through the official SDK client: server
 * instructions that name the tenant's business contexts, and a per-report outputSchema typed
 * from the declared fields, nullable where Postgres returns null.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };

describe('MCP instructions and output schemas (e2e, SDK client)', () => {
  let gw: RunningGateway;
  const clients: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = [];

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterEach(async () => {
    for (const { client, transport } of clients.splice(0)) {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
  afterAll(() => gw.close());

  async function connect(who: TokenClaims, query = ''): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(who)}` } },
    });
    const client = new Client({ name: 'details', version: '1.0.0' });
    await client.connect(transport);
    clients.push({ client, transport });
    return client;
  }

  it('the server instructions name the tenant and each of its business contexts', async () => {
    const instructions = (await connect(alice)).getInstructions() ?? '';
    expect(instructions).toContain('Read-only business reports of tenant acme');
    expect(instructions).toContain('Optional filters may be left out or sent as null.');
    for (const c of DEMO_CONTEXTS) expect(instructions).toContain(`${c.name} (${c.description})`);
    expect(instructions).not.toContain('This session serves business context');
  });

  it('a session opened for one context says so in its instructions', async () => {
    const instructions = (await connect(alice, '?context=SALES')).getInstructions() ?? '';
    expect(instructions).toContain('This session serves business context SALES.');
  });

  it('a report whose columns can be NULL gets a nullable outputSchema its real rows satisfy', async () => {
    const put = await gw.request('/v1/admin/reports/maybe_empty', {
      method: 'PUT',
      as: root,
      json: {
        name: 'Orders with an optional note',
        description: 'Order ids with a note that is usually missing',
        category: 'sales',
        sql_template:
          'SELECT o.id AS order_id, NULL::text AS note, CASE WHEN o.id = 1 THEN 1.5 END AS score FROM orders o WHERE o.id <= 3 ORDER BY o.id',
        filters: [],
        fields: [
          { name: 'order_id', type: 'integer' },
          { name: 'note', type: 'string' },
          { name: 'score', type: 'number' },
        ],
      },
    });
    expect(put.status).toBe(201);
    const client = await connect(root);
    const tool = (await client.listTools()).tools.find(
      (t) => t.name === 'query_report_maybe_empty',
    );
    expect(tool?.title).toBe('Orders with an optional note');
    const rows = (tool?.outputSchema?.properties?.rows ?? {}) as {
      items: { properties: Record<string, { type: string[] }> };
    };
    expect(rows.items.properties.note.type).toEqual(['string', 'null']);
    expect(rows.items.properties.score.type).toEqual(['number', 'null']);
    const result = await client.callTool({ name: 'query_report_maybe_empty', arguments: {} });
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as { rows: Array<Record<string, unknown>> };
    expect(page.rows.map((r) => r.note)).toEqual([null, null, null]);
    expect(page.rows[1].score).toBeNull();
    const validate = new Ajv({ strict: false }).compile(tool?.outputSchema ?? {});
    expect({ valid: validate(result.structuredContent), errors: validate.errors }).toEqual({
      valid: true,
      errors: null,
    });
  });
});
