import {
  openAiCompletion,
  openAiToolCall,
  runExample,
  startFakeProvider,
} from '../support/fake-provider';
import type { FakeProvider } from '../support/fake-provider';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * examples/mcp-langchain.mjs (LangChain's MCP adapters + LangGraph's ReAct agent) against the
 * gateway's /mcp and a scripted fake OpenAI Chat Completions server this test starts (no
 * network): round 1 the model calls two reports, one with a bad argument; round 2 answers.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

interface ChatRequest {
  messages: Array<{ role: string; content?: unknown; tool_call_id?: string }>;
  tools: Array<{ type: string; function: { name: string; parameters: object } }>;
}

// a distinct id per round: LangGraph merges messages that share an id
const completion = (round: number, message: object) =>
  openAiCompletion(message, `chatcmpl-${round}`);
const toolCall = openAiToolCall;

/** A tool message's text, whether LangChain sent a string or content parts. */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  return (content as Array<{ text?: string }>).map((p) => p.text ?? '').join('');
}

describe('examples/mcp-langchain.mjs (e2e, fake provider)', () => {
  let gw: RunningGateway;
  let fake: FakeProvider<ChatRequest>;

  beforeAll(async () => {
    gw = await startGateway();
    fake = await startFakeProvider<ChatRequest>((round) =>
      round === 1
        ? completion(round, {
            role: 'assistant',
            content: null,
            tool_calls: [
              toolCall('call_1', 'query_report_sales_by_region', { region: 'east' }),
              toolCall('call_2', 'query_report_sales_by_region', { region: 'middle' }),
            ],
          })
        : completion(round, { role: 'assistant', content: 'East sold a lot.' }),
    );
  });
  afterAll(async () => {
    await fake.close();
    await gw.close();
  });

  it("gives the model alice's MCP tools and hands the report rows back as tool messages", async () => {
    const run = await runExample('mcp-langchain.mjs', ['How did the east do?'], {
      GATEWAY_URL: gw.baseUrl,
      TOKEN: await mintToken(alice),
      OPENAI_API_KEY: 'sk-fake',
      OPENAI_BASE_URL: `${fake.url}/v1`,
    });
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(run.out.trim()).toBe('East sold a lot.');
    expect(fake.seen.map((s) => s.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    const [first, second] = fake.seen.map((s) => s.body);
    const mcpList = (await (await gw.request('/v1/tools?format=mcp', { as: alice })).json()) as {
      tools: Array<{ name: string }>;
    };
    expect(first.tools.map((t) => t.function.name)).toEqual(mcpList.tools.map((t) => t.name));
    const tools = second.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2']);
    expect(text(tools[0].content)).toMatch(/^1 row\(s\)[^\n]*\ncolumns: \["region",/);
    // a call outside the tool's inputSchema is refused by LangChain itself (it validates
    // against the schema the gateway listed) and reaches the model as text, not as a crash
    expect(text(tools[1].content)).toMatch(/did not match expected schema/);
  }, 60_000);
});

describe('examples/mcp-langchain.mjs with null for optional arguments (e2e, fake provider)', () => {
  let gw: RunningGateway;
  let fake: FakeProvider<ChatRequest>;

  beforeAll(async () => {
    gw = await startGateway();
    fake = await startFakeProvider<ChatRequest>((round) =>
      round === 1
        ? completion(round, {
            role: 'assistant',
            content: null,
            // what models send for filters they skip: every key, null for the unused ones
            tool_calls: [
              toolCall('call_1', 'query_report_sales_by_region', {
                region: 'east',
                page: null,
                page_size: null,
              }),
            ],
          })
        : completion(round, { role: 'assistant', content: 'Done.' }),
    );
  });
  afterAll(async () => {
    await fake.close();
    await gw.close();
  });

  it('LangChain passes the nulls (the listed inputSchema allows them) and the gateway reads them as not given', async () => {
    const run = await runExample('mcp-langchain.mjs', ['How did the east do?'], {
      GATEWAY_URL: gw.baseUrl,
      TOKEN: await mintToken(alice),
      OPENAI_API_KEY: 'sk-fake',
      OPENAI_BASE_URL: `${fake.url}/v1`,
    });
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    const tools = fake.seen[1].body.messages.filter((m) => m.role === 'tool');
    expect(text(tools[0].content)).toMatch(/^1 row\(s\)[^\n]*\ncolumns: \["region",/);
  }, 60_000);
});
