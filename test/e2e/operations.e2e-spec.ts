import { randomBytes } from 'node:crypto';
import { Metrics } from '@app/registry';
import pg from 'pg';
import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { changeCatalog, mintToken, startGateway, TEST_JWT_SECRET } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE } from '../support/mcp';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase } from '../support/test-database';
import { createWarehouseDatabase, WAREHOUSE_NETWORKS } from '../support/warehouse';
import type { TestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const HEX32 = /^[0-9a-f]{32}$/;
const SALES = 'query_report_sales_by_region';

type LogLine = Record<string, unknown>;

/** Captures the gateway's pino lines (what LOG_FORMAT=json writes to stdout). */
function logCapture(): { lines: LogLine[]; raw: string[]; write(line: string): void } {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  return {
    lines,
    raw,
    write(line: string) {
      raw.push(line);
      lines.push(JSON.parse(line) as LogLine);
    },
  };
}

/** Holds an exclusive lock on a tenant's orders table: report queries on it wait until released. */
async function lockOrders(db: TestDatabase, schema: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${schema}.orders IN ACCESS EXCLUSIVE MODE`);
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}

/** Waits until a report query is blocked on the lock; returns its application_name. */
async function waitingQuery(db: TestDatabase): Promise<string> {
  return eventually(async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ application_name: string }>(
        `SELECT application_name FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows.length === 0) throw new Error('no query waits on the lock yet');
      return rows[0].application_name;
    } finally {
      await client.end();
    }
  });
}

async function openMcp(gw: RunningGateway, who: TokenClaims): Promise<Record<string, string>> {
  const headers = {
    authorization: `Bearer ${await mintToken(who)}`,
    'content-type': 'application/json',
    ...MCP_ACCEPT,
  };
  const res = await fetch(`${gw.baseUrl}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify(MCP_INITIALIZE),
  });
  expect(res.status).toBe(200);
  return { ...headers, 'mcp-session-id': res.headers.get('mcp-session-id') ?? '' };
}

async function mcpCall(
  gw: RunningGateway,
  headers: Record<string, string>,
  name: string,
  args: unknown,
): Promise<{
  result: {
    isError?: boolean;
    content: Array<{ text: string }>;
    _meta?: { trace_id?: string };
  };
}> {
  const res = await fetch(`${gw.baseUrl}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
  return (await res.json()) as never;
}

describe('one request pipeline: trace ids, access log, metrics (e2e)', () => {
  let gw: RunningGateway;
  const logs = logCapture();

  beforeAll(async () => {
    gw = await startGateway(
      { LOG_LEVEL: 'info', METRICS_TOKEN: 'metrics-token-for-the-test-0001' },
      undefined,
      { logDestination: logs },
    );
  });
  afterAll(() => gw.close());

  it('says at start which database and Redis it uses, without their passwords', async () => {
    const lines = logs.lines.map((l) => String(l.msg));
    expect(lines.some((m) => m.startsWith('using Postgres at postgres://'))).toBe(true);
    // this instance runs without Redis: the start log says so, and so does /readyz
    expect(lines).toContain('REDIS_URL is not set: no shared (L2) cache, memory and Postgres only');
    expect(await (await gw.request('/readyz')).json()).toMatchObject({
      status: 'ready',
      database: 'up',
      catalog_listener: 'up',
      redis: 'off',
    });
  });

  it('applies the pipeline to a warm list answered by the fast lane: trace id, access log line, histogram', async () => {
    const token = await mintToken(alice);
    const get = () =>
      fetch(`${gw.baseUrl}/v1/tools?format=anthropic`, {
        headers: { authorization: `Bearer ${token}`, traceparent: TRACEPARENT },
      });
    await get(); // builds the list through the regular route
    const metrics = gw.app.get(Metrics);
    const served = () =>
      metrics.value('gateway_hot_path_responses_total', { route: 'GET /v1/tools' });
    const before = served();
    const res = await get();
    expect(res.status).toBe(200);
    expect(served()).toBe(before + 1); // answered by the fast lane, before Fastify
    expect(res.headers.get('x-trace-id')).toBe(TRACE_ID);
    const line = await eventually(async () => {
      const found = logs.lines.filter(
        (l) => l.msg === 'request' && l.trace_id === TRACE_ID && l.fast_lane === true,
      );
      if (found.length === 0) throw new Error('no access log line for the fast lane yet');
      return found[0];
    });
    expect(line).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/v1/tools',
      status: 200,
      tenant: 'acme',
      user: 'alice',
      kind: 'list',
      format: 'anthropic',
      outcome: 'ok',
      bytes: Number(res.headers.get('content-length')),
    });
    expect(typeof line.duration_ms).toBe('number');
    const text = await (
      await fetch(`${gw.baseUrl}/metrics`, {
        headers: { authorization: 'Bearer metrics-token-for-the-test-0001' },
      })
    ).text();
    expect(text).toMatch(
      /gateway_list_duration_seconds_count\{protocol="rest",format="anthropic",outcome="ok"\} [1-9]/,
    );
  });

  it('makes a trace id when none comes in, and puts it in results, error bodies and MCP _meta', async () => {
    const ok = await gw.request(`/v1/tools/${SALES}/call`, {
      method: 'POST',
      as: alice,
      json: { arguments: { region: 'east' } },
    });
    const body = (await ok.json()) as { trace_id: string; meta: { notice: string } };
    expect(body.trace_id).toMatch(HEX32);
    expect(ok.headers.get('x-trace-id')).toBe(body.trace_id);
    expect(body.meta.notice).toContain('not instructions');

    const missing = await gw.request('/v1/tools/query_report_nope/call', {
      method: 'POST',
      as: alice,
      json: { arguments: {} },
    });
    expect(missing.status).toBe(404);
    const error = (await missing.json()) as { trace_id: string; error: { code: string } };
    expect(error.error.code).toBe('TOOL_NOT_FOUND');
    expect(error.trace_id).toBe(missing.headers.get('x-trace-id'));

    const unauthenticated = await fetch(`${gw.baseUrl}/v1/tools`);
    expect(unauthenticated.status).toBe(401);
    expect(((await unauthenticated.json()) as { trace_id: string }).trace_id).toMatch(HEX32);

    const session = await openMcp(gw, alice);
    const mcp = await mcpCall(gw, session, SALES, { region: 'east' });
    expect(mcp.result._meta?.trace_id).toMatch(HEX32);
    expect(mcp.result.content.map((c: { text: string }) => c.text).join('\n')).toContain(
      'not instructions',
    );
  });

  it('protects /metrics with METRICS_TOKEN and exports call counts and process metrics', async () => {
    expect((await fetch(`${gw.baseUrl}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${gw.baseUrl}/metrics`, {
      headers: { authorization: 'Bearer metrics-token-for-the-test-0002' },
    });
    expect(wrong.status).toBe(401);
    await gw.request(`/v1/tools/${SALES}/call`, {
      method: 'POST',
      as: alice,
      json: { arguments: { region: 'e' } },
    });
    const res = await fetch(`${gw.baseUrl}/metrics`, {
      headers: { authorization: 'Bearer metrics-token-for-the-test-0001' },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(
      /gateway_tool_calls_total\{protocol="rest",code="INVALID_ARGUMENTS"\} [1-9]/,
    );
    expect(text).toMatch(
      /gateway_call_duration_seconds_bucket\{le="[^"]+",protocol="rest",outcome="INVALID_ARGUMENTS"\}/,
    );
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toMatch(/gateway_db_pool_connections\{state="max"\} \d+/);
    expect(text).toMatch(/gateway_postgres_up 1/);
  });

  it('counts SQL guard refusals of report templates by rule', async () => {
    await changeCatalog(gw, 'acme', (db) =>
      sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
          VALUES ('acme', 'ops_broken', 'Broken', 'bad template', 'DELETE FROM orders', 'sales')`.execute(
        db,
      ),
    );
    // nobody the list was made for reaches the report: the background judging refuses it
    await eventually(async () => {
      const text = await (
        await fetch(`${gw.baseUrl}/metrics`, {
          headers: { authorization: 'Bearer metrics-token-for-the-test-0001' },
        })
      ).text();
      expect(text).toMatch(/^gateway_sql_guard_refusals_total\{rule="[a-z_-]+"\} [1-9]/m);
    });
  });

  it('refuses a body over the limit with a coded 413, not a stack trace', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10);
    const res = await gw.request(`/v1/tools/${SALES}/call`, {
      method: 'POST',
      as: alice,
      json: { arguments: { region: big } },
    });
    expect(res.status).toBe(413);
    const body = (await res.json()) as {
      error: { code: string; message: string };
      trace_id: string;
    };
    expect(body.error).toEqual({ code: 'HTTP_413', message: 'Request body is too large' });
    expect(body.trace_id).toMatch(HEX32);
    expect(JSON.stringify(body)).not.toContain('    at ');
  });
});

describe('logs never hold a token, a secret, an argument value or a row (e2e)', () => {
  it('scans every line of a run of lists, calls, refusals and MCP traffic', async () => {
    const logs = logCapture();
    const gw = await startGateway({ LOG_LEVEL: 'trace' }, undefined, { logDestination: logs });
    try {
      const token = await mintToken(alice);
      const marker = `arg-${randomBytes(6).toString('hex')}`;
      const auth = { authorization: `Bearer ${token}` };
      await fetch(`${gw.baseUrl}/v1/tools`, { headers: auth });
      await fetch(`${gw.baseUrl}/v1/tools`, { headers: auth });
      const rows = await fetch(`${gw.baseUrl}/v1/tools/${SALES}/call`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ arguments: { region: 'east' } }),
      });
      const row = ((await rows.json()) as { result: { rows: Array<{ total_amount: unknown }> } })
        .result.rows[0];
      const rowValue = String(row.total_amount);
      await fetch(`${gw.baseUrl}/v1/tools/${SALES}/call`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ arguments: { region: marker } }),
      });
      await fetch(`${gw.baseUrl}/v1/tools`, { headers: { authorization: `Bearer ${token}x` } });
      const session = await openMcp(gw, alice);
      await mcpCall(gw, session, SALES, { region: 'east' });
      await mcpCall(gw, session, 'query_report_customers_by_segment', { segment: marker });
      await eventually(async () => {
        if (logs.lines.filter((l) => l.msg === 'request').length < 8)
          throw new Error('waiting for the access log lines');
      });
      const all = logs.raw.join('\n');
      expect(all).not.toContain(token);
      expect(all).not.toContain(token.split('.')[2]); // not even the signature
      expect(all).not.toContain(TEST_JWT_SECRET);
      expect(all).not.toContain(marker);
      expect(rowValue.length).toBeGreaterThan(3);
      expect(all).not.toContain(rowValue);
      // and every line of a request carries its trace id
      for (const line of logs.lines.filter((l) => l.msg === 'request'))
        expect(line.trace_id).toMatch(HEX32);
    } finally {
      await gw.close();
    }
  });
});

describe('logs never hold a data source password (e2e, issue #30)', () => {
  it('scans every line of a refused and an accepted registration, calls, health and a rotation', async () => {
    const wh = await createWarehouseDatabase(`CREATE SCHEMA sales;
      CREATE TABLE sales.orders (id integer PRIMARY KEY, region text);
      INSERT INTO sales.orders VALUES (1, 'north');`);
    const logs = logCapture();
    const key = randomBytes(32).toString('base64');
    const gw = await startGateway(
      { LOG_LEVEL: 'trace', ...WAREHOUSE_NETWORKS, DATASOURCE_KEY: key },
      undefined,
      {
        logDestination: logs,
      },
    );
    try {
      const admin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
      const writer = await wh.login((r) => [`GRANT INSERT ON sales.orders TO ${r}`]);
      const reader = await wh.login((r) => [
        `GRANT USAGE ON SCHEMA sales TO ${r}`,
        `GRANT SELECT ON sales.orders TO ${r}`,
      ]);
      const put = (url: string) =>
        gw.request('/v1/admin/datasources/wh', {
          method: 'PUT',
          as: admin,
          json: { url, schema: 'sales', tables: ['orders'] },
        });
      expect((await put(writer.url)).status).toBe(422);
      expect((await put(reader.url)).status).toBe(201);
      const report = await gw.request('/v1/admin/reports/wh_orders', {
        method: 'PUT',
        as: admin,
        json: {
          name: 'Warehouse orders',
          description: 'Orders from the warehouse.',
          sql_template: 'SELECT o.id, o.region FROM orders o',
          category: 'sales',
          datasource: 'wh',
        },
      });
      expect(report.status).toBe(201);
      const called = await gw.request('/v1/tools/query_report_wh_orders/call', {
        method: 'POST',
        as: alice,
        json: { arguments: {} },
      });
      expect(((await called.json()) as { is_error: boolean }).is_error).toBe(false);
      await gw.request('/v1/admin/datasources', { as: admin });
      // a bad password: the login is refused, its error logged nowhere with the password
      const wrong = new URL(reader.url);
      wrong.password = `wrong-${randomBytes(6).toString('hex')}`;
      expect((await put(wrong.toString())).status).toBe(422);
      await eventually(async () => {
        if (logs.lines.filter((l) => l.msg === 'request').length < 6)
          throw new Error('waiting for the access log lines');
      });
      const all = logs.raw.join('\n');
      for (const url of [writer.url, reader.url, wrong.toString()])
        expect(all).not.toContain(new URL(url).password);
      expect(all).not.toContain(key);
    } finally {
      await gw.close();
      await wh.drop();
    }
  });
});

describe('limits (e2e, real Redis)', () => {
  it('two instances share one per-user budget: the 4th call of 3 per minute is a 429 with Retry-After', async () => {
    const db = await createTestDatabase();
    const env = {
      REDIS_URL: process.env.TEST_REDIS_URL ?? '',
      REDIS_KEY_PREFIX: `ops-${randomBytes(4).toString('hex')}`,
      LIMIT_USER_CALLS_PER_MIN: '3',
    };
    const one = await startGateway(env, db);
    const two = await startGateway(env, db);
    try {
      const call = (gw: RunningGateway, who: TokenClaims) =>
        gw.request(`/v1/tools/${SALES}/call`, {
          method: 'POST',
          as: who,
          json: { arguments: { region: 'east' } },
        });
      expect((await call(one, alice)).status).toBe(200);
      expect((await call(two, alice)).status).toBe(200);
      expect((await call(one, alice)).status).toBe(200);
      const limited = await call(two, alice);
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const body = (await limited.json()) as {
        error: { code: string; message: string; details: { limit: string } };
        trace_id: string;
      };
      expect(body.error.code).toBe('RATE_LIMITED');
      expect(body.error.details.limit).toBe('user_calls_per_min');
      expect(body.error.message).toMatch(/retry in \d+ seconds?/);
      expect(body.trace_id).toMatch(HEX32);
      // another user of the same tenant has a budget of their own
      expect((await call(two, bob)).status).toBe(200);
      // MCP: an isError result saying when to retry
      const session = await openMcp(one, alice);
      const mcp = await mcpCall(one, session, SALES, { region: 'east' });
      expect(mcp.result.isError).toBe(true);
      expect(mcp.result.content[0].text).toMatch(/over the limit of 3; retry in \d+ seconds?/);
    } finally {
      await one.close();
      await two.close();
      await db.drop();
    }
  });

  it('limits the call fast lane too, counting a refused warm call once', async () => {
    // startGateway leaves its settings in process.env: put back what the next tests had
    const keys = ['REDIS_URL', 'REDIS_KEY_PREFIX', 'LIMIT_USER_CALLS_PER_MIN'] as const;
    const saved = keys.map((k) => process.env[k]);
    const gw = await startGateway({
      REDIS_URL: process.env.TEST_REDIS_URL ?? '',
      REDIS_KEY_PREFIX: `ops-${randomBytes(4).toString('hex')}`,
      LIMIT_USER_CALLS_PER_MIN: '1',
    });
    try {
      const metrics = gw.app.get(Metrics);
      const fast = () =>
        metrics.value('gateway_hot_path_responses_total', { route: 'POST /v1/tools/:name/call' });
      const limited = () =>
        metrics.value('gateway_tool_calls_total', { protocol: 'rest', code: 'RATE_LIMITED' });
      const token = await mintToken({ ...alice, user: 'alice-fast-lane' });
      const call = () =>
        fetch(`${gw.baseUrl}/v1/tools/${SALES}/call`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ arguments: { region: 'east' } }),
        });
      expect((await call()).status).toBe(200); // a new token: the controller
      const before = { fast: fast(), limited: limited() };
      const refused = await call(); // warm: the fast lane meets the limit, the filter answers
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        'RATE_LIMITED',
      );
      expect(fast()).toBe(before.fast);
      expect(limited()).toBe(before.limited + 1);
    } finally {
      await gw.close();
      keys.forEach((k, i) => {
        if (saved[i] === undefined) delete process.env[k];
        else process.env[k] = saved[i];
      });
    }
  });

  it("a tenant at its concurrency cap is refused at once and does not hold up another tenant's calls", async () => {
    const gw = await startGateway({ LIMIT_TENANT_CONCURRENT_QUERIES: '1', DB_POOL_SIZE: '2' });
    const release = await lockOrders(gw.database, 'tenant_acme');
    try {
      const call = (who: TokenClaims) =>
        gw.request(`/v1/tools/${SALES}/call`, {
          method: 'POST',
          as: who,
          json: { arguments: { region: 'east' } },
        });
      const slow = call(alice); // waits on the lock, holding acme's one slot
      const applicationName = await waitingQuery(gw.database);
      expect(applicationName).toMatch(/^gateway trace=[0-9a-f]{32}$/);
      const refused = await call(bob);
      expect(refused.status).toBe(429);
      expect(
        ((await refused.json()) as { error: { details: { limit: string } } }).error.details.limit,
      ).toBe('tenant_concurrent_queries');
      // globex runs while acme's query is still blocked: it was not queued behind it
      const other = await call(gina);
      expect(other.status).toBe(200);
      expect(((await other.json()) as { is_error: boolean }).is_error).toBe(false);
      await release();
      const done = await slow;
      expect(done.status).toBe(200);
      // the slot is free again
      expect((await call(bob)).status).toBe(200);
      // and the SQL carried the trace id of the request that ran it
      expect(applicationName).toBe(`gateway trace=${done.headers.get('x-trace-id')}`);
    } finally {
      await release().catch(() => undefined);
      await gw.close();
    }
  });
});

describe('per-report limits in the metadata (e2e)', () => {
  it('caps the rows and the statement timeout of one report, leaving the others alone', async () => {
    const gw = await startGateway();
    try {
      await changeCatalog(gw, 'acme', (db) =>
        sql`UPDATE gateway.reports SET max_rows = 1, statement_timeout_ms = 300
             WHERE tenant_id = 'acme' AND id = 'sales_by_region'`.execute(db),
      );
      const call = async (name: string, args: unknown) =>
        (await (
          await gw.request(`/v1/tools/${name}/call`, {
            method: 'POST',
            as: alice,
            json: { arguments: args },
          })
        ).json()) as {
          is_error: boolean;
          result?: { rows: unknown[]; page_size: number; has_more: boolean };
          error?: { code: string; message: string };
        };
      const capped = await call(SALES, { page_size: 5 });
      expect(capped.result).toMatchObject({ page_size: 1, has_more: true });
      expect(capped.result?.rows).toHaveLength(1);
      const other = await call('query_report_orders_by_status', { page_size: 5 });
      expect(other.result?.rows.length).toBeGreaterThan(1);

      const release = await lockOrders(gw.database, 'tenant_acme');
      try {
        const slow = await call(SALES, {});
        expect(slow.error).toEqual({
          code: 'TIMEOUT',
          message: expect.stringContaining('took longer than 0.3 s'),
        });
      } finally {
        await release();
      }
    } finally {
      await gw.close();
    }
  });
});

describe('error messages never carry connection strings or secrets (e2e)', () => {
  it('says "unavailable" without the database URL, its password or SQL when the database is gone', async () => {
    const db = await createTestDatabase();
    const url = new URL(db.url);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    await proxy.start();
    const password = `pw-${randomBytes(6).toString('hex')}`;
    url.host = `127.0.0.1:${proxy.port}`;
    url.username = 'postgres';
    url.password = password; // trust authentication ignores it; the gateway must not repeat it
    const gw = await startGateway({ DATABASE_URL: url.toString() }, { ...db, url: url.toString() });
    try {
      const call = () =>
        gw.request(`/v1/tools/${SALES}/call`, {
          method: 'POST',
          as: alice,
          json: { arguments: { region: 'east' } },
        });
      expect((await call()).status).toBe(200);
      await proxy.stop();
      const answers = [
        await (await call()).text(),
        await (await gw.request('/v1/tools', { as: gina })).text(),
        await (await gw.request('/readyz')).text(),
        await (
          await fetch(`${gw.baseUrl}/mcp`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${await mintToken(gina)}`,
              'content-type': 'application/json',
              ...MCP_ACCEPT,
            },
            body: JSON.stringify(MCP_INITIALIZE),
          })
        ).text(),
      ];
      const all = answers.join('\n');
      expect(all).toContain('unavailable');
      expect(all).not.toContain(password);
      expect(all).not.toMatch(/postgres(ql)?:\/\//);
      expect(all).not.toContain(String(proxy.port));
      expect(all).not.toContain(TEST_JWT_SECRET);
      expect(all).not.toMatch(/SELECT|FROM orders/);
    } finally {
      await gw.close();
      await proxy.stop();
      await db.drop();
    }
  });
});
