import { onboardExampleReport, runExample, startFakeProvider } from '../support/fake-provider';
import type { FakeProvider } from '../support/fake-provider';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * examples/agent-anthropic.mjs against a scripted fake Anthropic Messages API this test
 * starts (no network). Round 1: the model calls a report; while it "thinks", an admin
 * onboards a new report. Round 2 must list it (fetched again) and calls it; round 3 answers.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const admin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };

interface Block {
  type: string;
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
}
interface MessagesRequest {
  messages: Array<{ role: string; content: string | Block[] }>;
  tools: Array<{
    name: string;
    strict?: boolean;
    input_schema: { additionalProperties?: boolean };
  }>;
}

const message = (content: object[], stop: string) => ({
  id: 'msg_fake',
  type: 'message',
  role: 'assistant',
  model: 'fake',
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});

const toolUse = (id: string, name: string, input: object) => ({
  type: 'tool_use',
  id,
  name,
  input,
});

describe('examples/agent-anthropic.mjs (e2e, fake provider)', () => {
  let gw: RunningGateway;
  let fake: FakeProvider<MessagesRequest>;

  beforeAll(async () => {
    gw = await startGateway();
    fake = await startFakeProvider<MessagesRequest>(async (round) => {
      if (round === 1) {
        // the tool list the model was given this round is fixed: onboard now
        await onboardExampleReport(gw, admin);
        return message(
          [
            { type: 'text', text: 'Let me look.' },
            toolUse('toolu_1', 'query_report_sales_by_region', { region: 'east' }),
            toolUse('toolu_2', 'query_report_sales_by_region', { region: 'middle' }),
          ],
          'tool_use',
        );
      }
      if (round === 2)
        return message([toolUse('toolu_3', 'query_report_example_new', {})], 'tool_use');
      return message([{ type: 'text', text: 'East sold a lot.' }], 'end_turn');
    });
  });
  afterAll(async () => {
    await fake.close();
    await gw.close();
  });

  it('runs the tool loop and sees a report onboarded mid-conversation from the next round only', async () => {
    const run = await runExample('agent-anthropic.mjs', ['How did the east do?'], {
      GATEWAY_URL: gw.baseUrl,
      TOKEN: await mintToken(alice),
      ANTHROPIC_API_KEY: 'sk-ant-fake',
      ANTHROPIC_BASE_URL: fake.url,
    });
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(run.out.trim()).toBe('East sold a lot.');
    const [first, second, third] = fake.seen.map((s) => s.body);
    expect(fake.seen.map((s) => s.path)).toEqual(Array(3).fill('/v1/messages'));
    const names = (r: MessagesRequest) => r.tools.map((t) => t.name);
    expect(names(first)).not.toContain('query_report_example_new');
    expect(names(second)).toContain('query_report_example_new');
    expect(first.tools.every((t) => t.strict === true)).toBe(true);
    expect(first.tools.every((t) => t.input_schema.additionalProperties === false)).toBe(true);
    // round 2 carried both results of round 1 in one user message, each with its own outcome
    const results = second.messages.at(-1);
    expect(results?.role).toBe('user');
    const [east, middle] = results?.content as Block[];
    expect(east).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
    expect(east.is_error).toBeUndefined();
    expect(east.content).toMatch(/^1 row\(s\)[^\n]*\ncolumns: \["region",/);
    expect(middle).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_2',
      is_error: true,
      content: expect.stringMatching(/^Error INVALID_ARGUMENTS: region must be one of/),
    });
    const onboarded = (third.messages.at(-1)?.content as Block[])[0];
    expect(onboarded).toMatchObject({ tool_use_id: 'toolu_3' });
    expect(onboarded.content).toMatch(/columns: \["orders"\]\n\[\d+\]$/);
  }, 60_000);
});
