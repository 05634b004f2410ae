import { request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import type { Metrics } from '@app/registry';
import type { FastifyInstance } from 'fastify';
import type { RequestPipeline } from '../pipeline/request-pipeline';
import { limitSettings } from '../config/serving.config';
import { HotPaths } from './hot-paths';
import type { HotAnswer, HotPath, HotRequest } from './hot-path';

type PreParsing = (
  request: { raw: IncomingMessage },
  reply: unknown,
  payload: Readable,
  done: (err: Error | null, payload: Readable) => void,
) => void;

/** What "Fastify" (the server factory's handler) saw: the request and the body it could read. */
interface Fallen {
  url: string;
  body: string;
}

const LIMIT = 1024;

/**
 * The front lane in front of a stand-in for Fastify: a real HTTP server from `serverFactory`,
 * whose fall-through handler reads the body the way Fastify does (through the preParsing hook
 * the lane installs) and answers 299, so each test sees which side answered and with what body.
 */
describe('HotPaths front lane for POST', () => {
  let server: Server;
  let base: string;
  const fallen: Fallen[] = [];
  const seen: HotRequest[] = [];
  let answer: (request: HotRequest) => HotAnswer | Promise<HotAnswer> | undefined;

  beforeAll(async () => {
    const hooks: Record<string, PreParsing> = {};
    const fastify = {
      addHook: (name: string, fn: PreParsing) => (hooks[name] = fn),
    } as unknown as FastifyInstance;
    const metrics = { describe: () => undefined, counter: () => () => undefined };
    const pipeline = {
      install: () => undefined,
      contextOf: () => undefined,
      reenter: (_request: IncomingMessage, fn: () => void) => fn(),
      run: (_q: IncomingMessage, _s: ServerResponse, next: () => void) => next(),
    };
    const path: HotPath = {
      method: 'POST',
      url: '/v1/tools/:name/call',
      answer: (request) => {
        seen.push(request);
        return answer(request);
      },
    };
    const lanes = new HotPaths(limitSettings({ LIMIT_BODY_BYTES: String(LIMIT) }));
    const fastifyHandler = (request: IncomingMessage, response: ServerResponse) => {
      hooks.preParsing({ raw: request }, undefined, request, (_err, payload) => {
        let body = '';
        payload.on('data', (chunk: Buffer) => (body += chunk.toString()));
        payload.on('end', () => {
          fallen.push({ url: request.url ?? '', body });
          response.writeHead(299).end('fastify');
        });
      });
    };
    server = lanes.serverFactory(fastifyHandler);
    lanes.install(
      fastify,
      [path],
      metrics as unknown as Metrics,
      pipeline as unknown as RequestPipeline,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    fallen.length = 0;
    seen.length = 0;
    answer = () => ({
      headers: { 'content-type': 'application/json' },
      body: [Buffer.from('{"ok":1}')],
    });
  });

  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}${url}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('answers a JSON POST before Fastify, with the parsed body, route params and query', async () => {
    const res = await post(
      '/v1/tools/query_report_x/call?encoding=objects',
      '{"arguments":{"a":1}}',
    );
    expect(res).toEqual({ status: 200, body: '{"ok":1}' });
    expect(fallen).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0].body).toEqual({ arguments: { a: 1 } });
    expect(seen[0].params).toEqual({ name: 'query_report_x' });
    expect(seen[0].query).toEqual({ encoding: 'objects' });
  });

  it('gives Fastify the same body bytes when no hot path takes the request', async () => {
    answer = () => undefined;
    const body = '{"arguments":{"é":"ü"}}';
    const res = await post('/v1/tools/t/call', body);
    expect(res.status).toBe(299);
    expect(fallen).toEqual([{ url: '/v1/tools/t/call', body }]);
  });

  it('leaves bodies that are not JSON to Fastify, replayed unchanged, without asking the lane', async () => {
    for (const body of ['{"arguments":', '{"__proto__":{"x":1}}']) {
      const res = await post('/v1/tools/t/call', body);
      expect(res.status).toBe(299);
    }
    expect(fallen.map((f) => f.body)).toEqual(['{"arguments":', '{"__proto__":{"x":1}}']);
    expect(seen).toEqual([]);
  });

  it('does not read bodies it may not (another type, over the limit, chunked): Fastify reads them', async () => {
    const big = JSON.stringify({ arguments: { pad: 'x'.repeat(LIMIT) } });
    expect((await post('/v1/tools/t/call', 'a=1', { 'content-type': 'text/plain' })).status).toBe(
      299,
    );
    expect((await post('/v1/tools/t/call', big)).status).toBe(299);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/v1/tools/t/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.write('{"arguments"');
      req.end(':{}}');
    });
    expect(chunked).toBe(299);
    expect(fallen.map((f) => f.body)).toEqual(['a=1', big, '{"arguments":{}}']);
    expect(seen).toEqual([]);
  });

  it('leaves other routes and encoded paths to Fastify', async () => {
    expect((await post('/v1/tools/t', '{}')).status).toBe(299);
    expect((await post('/v1/tools/a%2Fb/call', '{}')).status).toBe(299);
    expect(seen).toEqual([]);
  });

  it('sends a coded refusal (a limit) to the route, and any other failure as a plain 500', async () => {
    answer = () => Promise.reject(Object.assign(new Error('slow down'), { code: 'RATE_LIMITED' }));
    const limited = await post('/v1/tools/t/call', '{"arguments":{}}');
    expect(limited.status).toBe(299);
    expect(fallen).toEqual([{ url: '/v1/tools/t/call', body: '{"arguments":{}}' }]);
    answer = () => Promise.reject(new Error('bug at line 3'));
    const broken = await post('/v1/tools/t/call', '{"arguments":{}}');
    expect(broken.status).toBe(500);
    expect(JSON.parse(broken.body)).toEqual({
      error: { code: 'INTERNAL', message: expect.any(String) },
    });
    expect(broken.body).not.toContain('line 3');
    expect(fallen).toHaveLength(1);
  });
});
