import { CatalogStore, Metrics } from '@app/registry';
import { sql } from 'kysely';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

interface ContractCase {
  name: string;
  who: TokenClaims;
  tool: string;
  /** the raw request body */
  body: string;
  /** whether the fast lane answers it (else it falls through to the controller) */
  fast: boolean;
  expect: (answer: Answer) => void;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
/** Every answer carries its own request's trace id (#16); apart from it they are identical. */
const withoutTraceId = (answer: Answer): Answer => {
  const body = JSON.parse(answer.body) as { trace_id?: unknown };
  expect(body.trace_id).toMatch(TRACE_ID);
  return { ...answer, body: JSON.stringify({ ...body, trace_id: undefined }) };
};
const json = (answer: Answer) => JSON.parse(answer.body) as Record<string, unknown>;
const toolError = (code: string, message: string | RegExp) => (answer: Answer) => {
  expect(answer.status).toBe(200);
  expect(json(answer)).toEqual({
    tool: expect.any(String),
    is_error: true,
    error: { code, message: expect.stringMatching(message) },
    trace_id: expect.stringMatching(TRACE_ID),
  });
};
const notFound = (answer: Answer) => {
  expect(answer.status).toBe(404);
  expect(answer.body).not.toMatch(/\n\s+at /);
};

/**
 * One contract for POST /v1/tools/{name}/call, checked on both paths: the controller (the
 * first request of a token, which this instance has not verified yet) and the call fast lane
 * (the same request again, warm). Both answers must meet the contract and be byte-identical.
 */
const CASES: ContractCase[] = [
  {
    name: 'a report call with rows',
    who: alice,
    tool: 'query_report_order_lookup',
    body: JSON.stringify({ arguments: { order_id: 7 } }),
    fast: true,
    expect: (a) => {
      expect(a.status).toBe(200);
      expect(a.type).toBe('application/json; charset=utf-8');
      const body = json(a) as { is_error: boolean; result: { rows: unknown[]; page: number } };
      expect(body.is_error).toBe(false);
      expect(body.result.rows.length).toBeGreaterThan(0);
      expect(body.result.page).toBe(1);
    },
  },
  {
    name: 'arguments that fail the schema',
    who: alice,
    tool: 'query_report_order_lookup',
    body: JSON.stringify({ arguments: { order_id: 'seven' } }),
    fast: true,
    expect: toolError('INVALID_ARGUMENTS', /order_id must be an integer/),
  },
  {
    name: 'an identity-bound argument',
    who: alice,
    tool: 'query_report_order_lookup',
    body: JSON.stringify({ arguments: { order_id: 7, tenant_id: 'globex' } }),
    fast: true,
    expect: toolError('INVALID_ARGUMENTS', /bound to your identity/),
  },
  {
    name: 'arguments that are not an object',
    who: alice,
    tool: 'query_report_order_lookup',
    body: JSON.stringify({ arguments: [1, 2] }),
    fast: true,
    expect: toolError('INVALID_ARGUMENTS', /arguments must be a JSON object/),
  },
  {
    name: 'a tool that does not exist',
    who: alice,
    tool: 'query_report_nope',
    body: JSON.stringify({ arguments: {} }),
    fast: false,
    expect: notFound,
  },
  {
    name: "a tool of the tenant the caller's roles do not grant",
    who: alice,
    tool: 'query_report_revenue_by_month',
    body: JSON.stringify({ arguments: {} }),
    fast: false,
    expect: notFound,
  },
  {
    name: "a user of tenant B calling tenant A's own report",
    who: gina,
    tool: 'query_report_acme_only',
    body: JSON.stringify({ arguments: {} }),
    fast: false,
    expect: notFound,
  },
];

describe('POST /v1/tools/{name}/call: one contract, controller and fast lane (e2e)', () => {
  let gw: RunningGateway;
  let metrics: Metrics;
  const fastAnswers = () =>
    metrics.value('gateway_hot_path_responses_total', { route: 'POST /v1/tools/:name/call' });

  beforeAll(async () => {
    gw = await startGateway();
    metrics = gw.app.get(Metrics);
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'acme_only', 'Acme only', 'acme only', 'SELECT count(*) AS n FROM orders', 'sales')`.execute(
      gw.database.handle.db,
    );
  });
  afterAll(() => gw.close());

  async function post(token: string, tool: string, body: string): Promise<Answer> {
    const res = await fetch(`${gw.baseUrl}/v1/tools/${tool}/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  }

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    // a user of its own, so the token is new to this instance (tokens minted in the same
    // second with the same claims are the same token)
    const token = await mintToken({ ...c.who, user: `${c.who.user}-${CASES.indexOf(c)}` });
    const before = fastAnswers();
    // a tenant catalog this instance does not hold: the controller answers (and loads it). A
    // new token is no longer enough: the body gate verifies it before any lane reads the body.
    gw.app.get(CatalogStore).invalidate(c.who.tenant);
    const viaController = await post(token, c.tool, c.body);
    expect(fastAnswers()).toBe(before);
    c.expect(viaController);
    const warm = await post(token, c.tool, c.body);
    expect(fastAnswers()).toBe(before + (c.fast ? 1 : 0));
    c.expect(warm);
    expect(withoutTraceId(warm)).toEqual(withoutTraceId(viaController));
  });

  it('leaves a bad token to the controller (401) on a warm tool', async () => {
    const token = await mintToken(alice);
    await post(token, 'query_report_order_lookup', '{"arguments":{"order_id":7}}');
    const before = fastAnswers();
    // a signature character changed well inside (the last one carries ignored padding bits)
    const at = token.length - 10;
    const forged = await post(
      `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`,
      'query_report_order_lookup',
      '{"arguments":{"order_id":7}}',
    );
    expect(forged.status).toBe(401);
    expect(fastAnswers()).toBe(before);
  });

  it('serves a tenant A report to tenant A on the fast lane, never to tenant B', async () => {
    const acmeAdmin = await mintToken({ tenant: 'acme', user: 'root', roles: ['admin'] });
    const body = '{"arguments":{}}';
    await post(acmeAdmin, 'query_report_acme_only', body);
    const before = fastAnswers();
    const own = await post(acmeAdmin, 'query_report_acme_only', body);
    expect(fastAnswers()).toBe(before + 1);
    expect(JSON.parse(own.body)).toMatchObject({ is_error: false });
    const globexAdmin = await mintToken({ tenant: 'globex', user: 'root', roles: ['admin'] });
    await post(globexAdmin, 'query_report_order_lookup', '{"arguments":{"order_id":7}}');
    expect((await post(globexAdmin, 'query_report_acme_only', body)).status).toBe(404);
  });
});
