import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { RunningGateway, TokenClaims } from './gateway';

/**
 * A scripted stand-in for an LLM provider's HTTP API (no network): it records every request
 * body and answers round N with `script(N, body)`. Examples are pointed at it through their
 * SDK's base-URL setting.
 */
export interface FakeProvider<T> {
  url: string;
  /** request bodies in arrival order, with the path each was sent to */
  seen: Array<{ path: string; body: T }>;
  close(): Promise<void>;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('error', reject);
    req.on('end', () => resolve(body === '' ? {} : JSON.parse(body)));
  });
}

export async function startFakeProvider<T>(
  script: (round: number, body: T) => Promise<object> | object,
): Promise<FakeProvider<T>> {
  const seen: Array<{ path: string; body: T }> = [];
  const server = createServer((req, res) => {
    readJson(req)
      .then(async (body) => {
        seen.push({ path: req.url ?? '', body: body as T });
        const answer = await script(seen.length, body as T);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(answer));
      })
      .catch((err: Error) => {
        // the example then fails with this message, and so does the test
        res.statusCode = 500;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ error: { type: 'fake_provider', message: err.message } }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs examples/<name> with node and the given environment; resolves with its outcome. */
export async function runExample(
  name: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(
    process.execPath,
    [path.resolve(__dirname, '../../examples', name), ...args],
    { env: { ...process.env, ...env } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out, err };
}

/** An OpenAI chat completion answering with `message` (`id` distinct per round if needed). */
export const openAiCompletion = (message: object, id = 'chatcmpl-1') => ({
  id,
  object: 'chat.completion',
  created: 0,
  model: 'fake',
  choices: [{ index: 0, message, finish_reason: 'stop', logprobs: null }],
});

/** An OpenAI tool call, as a model asks for one. */
export const openAiToolCall = (id: string, name: string, args: object) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

/**
 * Adds the report `example_new` (tool `query_report_example_new`) as `admin`: the examples'
 * tests onboard it mid-conversation, so the model sees it only from the next round.
 */
export async function onboardExampleReport(gw: RunningGateway, admin: TokenClaims): Promise<void> {
  const put = await gw.request('/v1/admin/reports/example_new', {
    method: 'PUT',
    as: admin,
    json: {
      name: 'Onboarded mid-conversation',
      description: 'Order count',
      category: 'sales',
      sql_template: 'SELECT count(*)::int AS orders FROM orders',
      filters: [],
      fields: [{ name: 'orders', type: 'integer' }],
    },
  });
  if (put.status !== 201) throw new Error(`onboarding failed: ${put.status}`);
}
