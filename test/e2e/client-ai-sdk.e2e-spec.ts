import { createMCPClient } from '@ai-sdk/mcp';
import type { MCPClient } from '@ai-sdk/mcp';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * The Vercel AI SDK's MCP client (@ai-sdk/mcp 1.x, the line that runs on Node 20) over /mcp,
 * as docs/clients/ai-sdk.md uses it: its tool set is the caller's list, and executing a tool
 * gives the text the AI SDK forwards to the model (the compact page, every row).
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

interface ToolOutput {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
}

describe('Vercel AI SDK MCP client (e2e)', () => {
  let gw: RunningGateway;
  let client: MCPClient;

  beforeAll(async () => {
    gw = await startGateway();
    client = await createMCPClient({
      transport: {
        type: 'http',
        url: `${gw.baseUrl}/mcp`,
        headers: { authorization: `Bearer ${await mintToken(alice)}` },
      },
    });
  });
  afterAll(async () => {
    await client.close();
    await gw.close();
  });

  it("gets the caller's tools, with the server instructions", async () => {
    const tools = await client.tools();
    const rest = (await (await gw.request('/v1/tools?format=mcp', { as: alice })).json()) as {
      tools: Array<{ name: string }>;
    };
    expect(Object.keys(tools)).toEqual(rest.tools.map((t) => t.name));
    expect(client.instructions).toContain('Read-only business reports of tenant acme');
  });

  it('executes a report: the text the model gets holds every row of the page', async () => {
    const tools = await client.tools();
    const output = (await tools.query_report_product_catalog.execute(
      { page_size: 100 },
      { toolCallId: 'call_1', messages: [] },
    )) as ToolOutput;
    expect(output.isError).toBeFalsy();
    const text = output.content[0].text;
    expect(text).toMatch(/^100 row\(s\), result rows 1-100 \(page 1, page_size 100\)/);
    // the header line, the columns line, then one line per row
    expect(text.split('\n').filter((l) => l.startsWith('['))).toHaveLength(100);
  });

  it('a bad argument comes back as an error result the model can read', async () => {
    const tools = await client.tools();
    const output = (await tools.query_report_sales_by_region.execute(
      { region: 'middle' },
      { toolCallId: 'call_2', messages: [] },
    )) as ToolOutput;
    expect(output).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: 'region must be one of east, west, north, south; got "middle"' },
      ],
    });
  });
});
