import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { onboardExampleReport, openAiCompletion, openAiToolCall } from '../support/fake-provider';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * examples/agent-openai.mjs against a scripted fake OpenAI server this test starts (no
 * network). Round 1: the model calls a report; while it "thinks", an admin onboards a new
 * report. Round 2 must list it (fetched again) and may call it; round 3 answers.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const admin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };

interface ChatRequest {
  messages: Array<{ role: string; content?: string | null; tool_call_id?: string }>;
  tools: Array<{ function: { name: string; strict: boolean } }>;
}

function readJson(req: IncomingMessage): Promise<ChatRequest> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => resolve(JSON.parse(body) as ChatRequest));
  });
}

const completion = (message: object) => openAiCompletion(message);
const toolCall = openAiToolCall;

describe('examples (e2e, fake provider)', () => {
  let gw: RunningGateway;
  let fake: Server;
  const seen: ChatRequest[] = [];

  beforeAll(async () => {
    gw = await startGateway();
    fake = createServer((req, res) => {
      void readJson(req).then(async (body) => {
        seen.push(body);
        let message: object;
        if (seen.length === 1) {
          // the tool list the model was given this round is fixed: onboard now
          await onboardExampleReport(gw, admin);
          message = {
            role: 'assistant',
            content: null,
            tool_calls: [
              toolCall('call_1', 'query_report_sales_by_region', {
                region: 'east',
                order_date: null,
              }),
            ],
          };
        } else if (seen.length === 2) {
          message = {
            role: 'assistant',
            content: null,
            tool_calls: [toolCall('call_2', 'query_report_example_new', {})],
          };
        } else {
          message = { role: 'assistant', content: 'East sold a lot.' };
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(completion(message)));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => fake.close(resolve));
    await gw.close();
  });

  it('agent-openai.mjs runs the tool loop and sees a report onboarded mid-conversation from the next round', async () => {
    const child = spawn(
      process.execPath,
      [path.resolve(__dirname, '../../examples/agent-openai.mjs'), 'How did the east do?'],
      {
        env: {
          ...process.env,
          GATEWAY_URL: gw.baseUrl,
          TOKEN: await mintToken(alice),
          OPENAI_API_KEY: 'sk-fake',
          OPENAI_BASE_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`,
        },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out.trim()).toBe('East sold a lot.');
    const names = (r: ChatRequest) => r.tools.map((t) => t.function.name);
    expect(names(seen[0])).not.toContain('query_report_example_new');
    expect(names(seen[1])).toContain('query_report_example_new');
    expect(seen[0].tools.every((t) => t.function.strict)).toBe(true);
    // round 2 carried the rows of round 1's call, as a role:"tool" message
    const toolMessage = seen[1].messages.find((m) => m.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'call_1' });
    expect(toolMessage?.content).toMatch(/^1 row\(s\)[^\n]*\ncolumns: \["region",/);
    const second = seen[2].messages.find((m) => m.tool_call_id === 'call_2');
    expect(second?.content).toMatch(/columns: \["orders"\]\n\[\d+\]$/);
  }, 60_000);
});
