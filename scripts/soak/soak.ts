import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT } from 'jose';
import pg from 'pg';
import { PrivateRedis } from '../../test/support/redis-server';
import { TcpProxy } from '../../test/support/tcp-proxy';
import { databaseUrl, ensureTemplate } from '../../test/support/template-database';
import {
  buildIfNeeded,
  HAPROXY_MISSING,
  haproxyPath,
  ROOT,
  startCluster,
} from '../cluster/cluster';
import type { Cluster } from '../cluster/cluster';
import { lineChart } from './charts';
import type { FaultMark } from './charts';

/**
 * `npm run soak -- --minutes M --replicas N`: mixed traffic through HAProxy to N replicas
 * while a fault script runs, every answer checked against the catalog of that moment; writes
 * bench/SOAK.md with charts. Everything it starts is its own: a database cloned from the
 * test template, a private redis-server on a free port, a TCP proxy in front of Postgres
 * (the machine's Postgres and Redis are never stopped or flushed). Traffic only to 127.0.0.1.
 */

const PG_SERVER = process.env.SOAK_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const GRACE_MS = 1500; // a list may reflect the catalog this long before the request started
const RECOVERY_MS = 10_000; // after a fault ends, answers are still counted to the fault

type Who = { tenant: string; user: string; roles: string[]; claims?: Record<string, string> };
const alice: Who = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const fiona: Who = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const sam: Who = { tenant: 'acme', user: 'sam', roles: ['sales_rep'], claims: { region: 'east' } };
const root: Who = { tenant: 'acme', user: 'root', roles: ['admin'], claims: { region: 'west' } };
const gina: Who = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
const author: Who = { tenant: 'acme', user: 'ada', roles: ['tool_author'] };
const reviewer: Who = { tenant: 'acme', user: 'rex', roles: ['tool_reviewer'] };
const LISTERS = [alice, fiona, sam, root, gina];
const FORMATS = ['openai', 'anthropic', 'mcp'];
const CONTEXTS = ['', 'SALES', 'FINANCE', 'INVENTORY'];

const DEMO_CALLS: Array<[string, Record<string, unknown>]> = [
  ['sales_by_region', { region: 'east' }],
  ['top_customers', { min_total: 1000 }],
  ['orders_by_status', { statuses: ['shipped'] }],
  ['order_lookup', { order_id: 42 }],
  ['customers_by_segment', {}],
  ['sales_in_my_region', {}],
  ['my_orders', {}],
  ['revenue_by_month', { year: 2025 }],
  ['average_order_value', { region: 'north' }],
  ['product_catalog', { price: { min: 10, max: 500 } }],
  ['low_stock', { only_below_reorder: true }],
];

interface Sample {
  t: number; // ms since start (request start)
  ms: number;
  op: string;
  phase: string;
  status: number;
  cls: string;
}

interface Phase {
  name: string;
  start: number;
  end: number;
}

class Recorder {
  readonly samples: Sample[] = [];
  readonly phases: Phase[] = [];
  readonly rss: Array<{ t: number; replica: string; mb: number }> = [];
  readonly notes: string[] = [];
  constructor(readonly t0: number) {}

  now(): number {
    return Date.now() - this.t0;
  }

  phaseAt(t: number): string {
    for (const p of this.phases) if (t >= p.start && t <= p.end + RECOVERY_MS) return p.name;
    return t < this.warmupEnd ? 'warm-up' : 'steady';
  }

  inPause(t0: number, t1: number): boolean {
    return this.phases.some(
      (p) => p.name === 'pause-postgres' && t1 >= p.start && t0 <= p.end + RECOVERY_MS,
    );
  }

  warmupEnd = 0;

  /** the first full text of each class of failure, for the report */
  readonly examples = new Map<string, string>();

  add(s: Omit<Sample, 'phase'>, detail?: string): Sample {
    const sample = { ...s, phase: this.phaseAt(s.t) };
    this.samples.push(sample);
    this.example(sample.cls, detail);
    return sample;
  }

  example(cls: string, detail?: string): void {
    if (cls !== 'ok' && detail && !this.examples.has(cls))
      this.examples.set(cls, detail.slice(0, 300));
  }
}

/**
 * Catalog history of the reports the soak itself adds/changes/removes. A write commits at
 * some moment between its request and its answer, so while it is in flight both the
 * catalog before it and the one after it are right: each state is valid from the start of
 * the write that made it to the answer of the write that replaced it.
 */
class CatalogModel {
  private readonly history: Array<{ from: number; until: number; names: Set<string> }> = [
    { from: -Infinity, until: Infinity, names: new Set() },
  ];
  constructor(private readonly rec: Recorder) {}
  get current(): Set<string> {
    return this.history[this.history.length - 1].names;
  }
  /** a write sent at `sentAt` and answered now left the catalog holding `names` */
  set(names: Set<string>, sentAt: number): void {
    const last = this.history[this.history.length - 1];
    if (last.names.size === names.size && [...names].every((n) => last.names.has(n))) return;
    last.until = this.rec.now();
    this.history.push({ from: sentAt, until: Infinity, names: new Set(names) });
  }
  /** the states valid in [from, to], for the log of a stale list */
  describe(from: number, to: number): string {
    const states = this.history.filter((h) => h.until >= from && h.from <= to);
    return states
      .map((h) => `[${[...h.names].sort().join(' ')}] from ${h.from} until ${h.until}`)
      .join('; ');
  }
  /** did the catalog hold exactly `seen` at some moment in [from, to]? */
  matches(seen: Set<string>, from: number, to: number): boolean {
    return this.history.some(
      (h) =>
        h.until >= from &&
        h.from <= to &&
        h.names.size === seen.size &&
        [...h.names].every((n) => seen.has(n)),
    );
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '3' },
      replicas: { type: 'string', default: '2' },
      out: { type: 'string', default: path.join(ROOT, 'bench/SOAK.md') },
    },
  });
  const minutes = Number(values.minutes);
  const replicas = Number(values.replicas);
  if (!(minutes > 0 && minutes <= 120) || !Number.isInteger(replicas) || replicas < 2) {
    throw new Error('usage: npm run soak -- --minutes M (0-120] --replicas N (>= 2)');
  }
  if (!haproxyPath()) throw new Error(HAPROXY_MISSING);
  buildIfNeeded();

  // --- what the soak owns ---------------------------------------------------------------
  const runId = randomBytes(4).toString('hex');
  const dbName = `gw_soak_${runId}`;
  const admin = new pg.Client({ connectionString: PG_SERVER });
  await admin.connect();
  const template = await ensureTemplate(PG_SERVER);
  await admin.query(`CREATE DATABASE "${dbName}" TEMPLATE "${template}"`);
  const pgPort = Number(new URL(PG_SERVER).port || 5432);
  const pgProxy = new TcpProxy(new URL(PG_SERVER).hostname, pgPort);
  const proxyPort = await pgProxy.start();
  const redis = new PrivateRedis(await PrivateRedis.freePort());
  await redis.start();
  const secret = randomBytes(32).toString('base64url');
  const toolsDir = path.join(ROOT, '.data', `soak-tools-${runId}`);
  const logDir = path.join(ROOT, '.data', 'soak');
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `soak-${runId}.log`);
  const log = createWriteStream(logFile);
  let cluster: Cluster | undefined;
  let closeTruth = async (): Promise<void> => undefined;
  const mcpClients: Client[] = [];
  const cleanup = async (): Promise<void> => {
    await Promise.all(mcpClients.map((c) => c.close().catch(() => undefined)));
    await closeTruth().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    await redis.stop().catch(() => undefined);
    await pgProxy.stop().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    rmSync(toolsDir, { recursive: true, force: true });
    log.end();
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

  try {
    process.stderr.write(
      `[soak] ${minutes} min, ${replicas} replicas; database ${dbName}, private Redis :${redis.port}, Postgres via proxy :${proxyPort}; logs ${path.relative(ROOT, logFile)}\n`,
    );
    cluster = await startCluster({
      replicas,
      port: 0,
      supervise: true,
      log: (line) => log.write(`${new Date().toISOString()} ${line}\n`),
      env: {
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl(`postgres://postgres@127.0.0.1:${proxyPort}`, dbName),
        REDIS_URL: redis.url,
        AUTH_JWT_SECRET: secret,
        GENERATED_TOOLS_DIR: toolsDir,
        DB_POOL_SIZE: '6',
      },
    });
    const lb = cluster.url;
    const key = new TextEncoder().encode(secret);
    const tokens = new Map<string, string>();
    const token = async (w: Who): Promise<string> => {
      const k = `${w.tenant}/${w.user}`;
      if (!tokens.has(k)) {
        tokens.set(
          k,
          await new SignJWT({ ...(w.claims ?? {}), tenant: w.tenant, roles: w.roles })
            .setProtectedHeader({ alg: 'HS256' })
            .setSubject(w.user)
            .setExpirationTime('3h')
            .sign(key),
        );
      }
      return tokens.get(k)!;
    };
    const http = async (
      w: Who,
      method: string,
      url: string,
      body?: unknown,
    ): Promise<{ status: number; json: unknown; by: string }> => {
      const res = await fetch(`${lb}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${await token(w)}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      let json: unknown = undefined;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = text;
      }
      return { status: res.status, json, by: res.headers.get('x-served-by') ?? '?' };
    };
    const namesOf = (format: string, json: unknown): string[] => {
      const tools = (json as { tools?: Array<Record<string, unknown>> }).tools ?? [];
      return tools.map((t) =>
        format === 'openai' ? (t.function as { name: string }).name : (t.name as string),
      );
    };

    // --- baseline: what each lister sees of the demo catalog; where soak reports show ----
    const baseline = new Map<string, string[]>();
    for (const w of LISTERS)
      for (const format of FORMATS)
        for (const context of CONTEXTS) {
          const r = await http(w, 'GET', `/v1/tools?format=${format}&context=${context}`);
          if (r.status !== 200) throw new Error(`baseline list ${r.status}`);
          baseline.set(`${w.user}|${format}|${context}`, namesOf(format, r.json).sort());
        }
    // soak reports are category sales: which listers/contexts see them is read, not assumed
    const probe = 'soak_probe';
    const doc = (description: string) => ({
      name: 'Soak report',
      description,
      sql_template: 'SELECT count(*) AS n FROM orders',
      category: 'sales',
    });
    if ((await http(root, 'PUT', `/v1/admin/reports/${probe}`, doc('probe'))).status !== 201)
      throw new Error('could not add the probe report');
    const seesSoak = new Set<string>();
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await http(root, 'GET', '/v1/tools?format=mcp');
      if (namesOf('mcp', r.json).includes(`query_report_${probe}`)) break;
      if (Date.now() > deadline) throw new Error('the probe report never showed up');
      await new Promise((res) => setTimeout(res, 100));
    }
    for (const w of LISTERS)
      for (const context of CONTEXTS) {
        const r = await http(w, 'GET', `/v1/tools?format=mcp&context=${context}`);
        if (namesOf('mcp', r.json).includes(`query_report_${probe}`))
          seesSoak.add(`${w.user}|${context}`);
      }
    await http(root, 'DELETE', `/v1/admin/reports/${probe}`);

    // --- traffic --------------------------------------------------------------------------
    const totalMs = minutes * 60_000;
    const rec = new Recorder(Date.now());
    rec.warmupEnd = Math.min(20_000, totalMs * 0.1);
    const model = new CatalogModel(rec);
    let stopped = false;

    const judgeList = (
      w: Who,
      format: string,
      context: string,
      names: string[],
      t0: number,
      t1: number,
    ) => {
      const soak = new Set(names.filter((n) => n.startsWith('query_report_soak_')));
      const rest = names.filter((n) => !n.startsWith('query_report_soak_')).sort();
      const base = baseline.get(`${w.user}|${format}|${context}`)!;
      if (rest.length !== base.length || rest.some((n, i) => n !== base[i])) return 'wrong_list';
      const expectSoak = seesSoak.has(`${w.user}|${context}`);
      if (!expectSoak) return soak.size === 0 ? 'ok' : 'wrong_list';
      return model.matches(soak, t0 - GRACE_MS, t1) ? 'ok' : 'stale_list';
    };
    /** judgeList, and a log line with what the model held when the list is not right */
    const judgeLogged = (
      via: string,
      w: Who,
      format: string,
      context: string,
      names: string[],
      t0: number,
      t1: number,
    ): string => {
      const verdict = judgeList(w, format, context, names, t0, t1);
      if (verdict !== 'ok') {
        const soak = names.filter((n) => n.startsWith('query_report_soak_')).sort();
        log.write(
          `[soak] ${verdict}: ${via} list at ${t0}-${t1} ms, ${w.user}|${format}|${context} saw [${soak.join(' ')}]; model: ${model.describe(t0 - GRACE_MS, t1)}\n`,
        );
      }
      return verdict;
    };
    const classify = (status: number, json: unknown, t0: number): string => {
      if (status >= 500) {
        // a clear, coded 503 while Postgres is paused: from a replica (DATA_UNAVAILABLE) or
        // from HAProxy when no replica is ready (SERVICE_UNAVAILABLE)
        const code = (json as { error?: { code?: string } })?.error?.code ?? '';
        return status === 503 &&
          ['DATA_UNAVAILABLE', 'DATABASE_UNAVAILABLE', 'SERVICE_UNAVAILABLE'].includes(code) &&
          rec.inPause(t0, rec.now())
          ? '503_unavailable_in_pause'
          : `${status}`;
      }
      if (status >= 400) return `${status}`;
      return 'ok';
    };
    /**
     * Lists are judged when the run is over: an admin write still in flight when a list
     * answered (its commit may already be visible) is then in the model with its window.
     */
    const judgements: Array<() => void> = [];
    const timed = async (
      op: string,
      fn: () => Promise<{ status: number; cls: string; detail?: string; judge?: () => string }>,
    ) => {
      const t = rec.now();
      const started = performance.now();
      try {
        const { status, cls, detail, judge } = await fn();
        const sample = rec.add({ t, ms: performance.now() - started, op, status, cls }, detail);
        if (judge)
          judgements.push(() => {
            sample.cls = judge();
            rec.example(sample.cls, `${op} at ${t} ms`);
          });
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        const message = err instanceof Error ? err.message : String(err);
        let cls = cause
          ? `network:${cause}`
          : `client_error:${message.replace(/[0-9a-f-]{36}/g, '<id>').slice(0, 70)}`;
        // the MCP client reports an HTTP 503 from the load balancer as an exception
        // (the SDK puts the body, not the status, in the message): a 5xx is counted as one
        const is503 = /HTTP 503|SERVICE_UNAVAILABLE|DATA(BASE)?_UNAVAILABLE/.test(message);
        if (is503 && rec.inPause(t, rec.now())) cls = '503_unavailable_in_pause';
        else if (is503) cls = `503:${cls}`;
        const status = is503 ? 503 : /HTTP 5\d\d/.test(message) ? 500 : 0;
        rec.add({ t, ms: performance.now() - started, op, status, cls }, message);
      }
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

    const restList = () =>
      timed('rest_list', async () => {
        const w = pick(LISTERS);
        const format = pick(FORMATS);
        const context = pick(CONTEXTS);
        const t0 = rec.now();
        const r = await http(w, 'GET', `/v1/tools?format=${format}&context=${context}`);
        const cls = classify(r.status, r.json, t0);
        if (cls !== 'ok') return { status: r.status, cls, detail: JSON.stringify(r.json) };
        const names = namesOf(format, r.json);
        const t1 = rec.now();
        const judge = () => judgeLogged(`REST ${r.by}`, w, format, context, names, t0, t1);
        return { status: r.status, cls: 'ok', judge };
      });
    const restCall = () =>
      timed('rest_call', async () => {
        const [report, args] = pick(DEMO_CALLS);
        const t0 = rec.now();
        const r = await http(root, 'POST', `/v1/tools/query_report_${report}/call`, {
          arguments: args,
        });
        const cls = classify(r.status, r.json, t0);
        if (cls !== 'ok') return { status: r.status, cls, detail: JSON.stringify(r.json) };
        const body = r.json as { is_error: boolean; error?: { code: string } };
        if (!body.is_error) return { status: r.status, cls: 'ok' };
        const code = body.error?.code ?? 'UNKNOWN';
        return {
          detail: JSON.stringify(body.error),
          status: r.status,
          cls:
            code === 'DATA_UNAVAILABLE' && rec.inPause(t0, rec.now())
              ? 'tool_data_unavailable_in_pause'
              : `tool_error:${code}`,
        };
      });

    // long-lived MCP sessions (agents), through the load balancer
    const mcpUsers = [alice, root, alice];
    const connectMcp = async (w: Who): Promise<Client> => {
      const transport = new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await token(w)}` } },
        reconnectionOptions: {
          initialReconnectionDelay: 200,
          maxReconnectionDelay: 2000,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 1000,
        },
      });
      const client = new Client({ name: 'soak', version: '1' });
      client.onerror = () => undefined;
      await client.connect(transport);
      return client;
    };
    for (const w of mcpUsers) mcpClients.push(await connectMcp(w));
    let sessionsLost = 0;
    /** a client told its session is gone starts a new one, as agents do (and it is counted) */
    const renew = async (i: number, err: unknown): Promise<void> => {
      if (!/session not found/.test(String(err))) return;
      sessionsLost += 1;
      const old = mcpClients[i];
      mcpClients[i] = await connectMcp(mcpUsers[i]);
      await old.close().catch(() => undefined);
    };
    const mcpOp = () => {
      const i = Math.floor(Math.random() * mcpClients.length);
      const client = mcpClients[i];
      const w = mcpUsers[i];
      return Math.random() < 0.5
        ? timed('mcp_list', async () => {
            const t0 = rec.now();
            const { tools } = await client.listTools().catch(async (err: unknown) => {
              await renew(i, err).catch(() => undefined);
              throw err;
            });
            const t1 = rec.now();
            const names = tools.map((t) => t.name);
            const judge = () => judgeLogged(`MCP #${i}`, w, 'mcp', '', names, t0, t1);
            return { status: 200, cls: 'ok', judge };
          })
        : timed('mcp_call', async () => {
            const [report, args] = pick(
              DEMO_CALLS.filter(
                ([r]) =>
                  w === root ||
                  ['sales_by_region', 'top_customers', 'product_catalog', 'low_stock'].includes(r),
              ),
            );
            const t0 = rec.now();
            const result = await client
              .callTool({
                name: `query_report_${report}`,
                arguments: args,
              })
              .catch(async (err: unknown) => {
                await renew(i, err).catch(() => undefined);
                throw err;
              });
            if (!result.isError) return { status: 200, cls: 'ok' };
            const text = JSON.stringify(result.content);
            return {
              status: 200,
              cls: rec.inPause(t0, rec.now())
                ? 'tool_data_unavailable_in_pause'
                : `mcp_tool_error:${text.slice(0, 60)}`,
            };
          });
    };

    // admin writes: one writer, so the model knows the catalog at every moment. After each
    // write the soak reads what Postgres holds (directly, not through the paused proxy): an
    // answer lost to a fault, or a PUT/DELETE that HAProxy replayed on another replica after
    // the first one committed, still leaves the model right.
    const truth = new pg.Client({ connectionString: databaseUrl(PG_SERVER, dbName) });
    truth.on('error', () => undefined);
    await truth.connect();
    closeTruth = () => truth.end();
    const committed = async (t0: number): Promise<void> => {
      const { rows } = await truth.query<{ id: string }>(
        `SELECT id FROM gateway.reports WHERE tenant_id = 'acme' AND id LIKE 'soak\\_%'`,
      );
      model.set(new Set(rows.map((r) => `query_report_${r.id}`)), t0);
    };
    let seq = 0;
    const adminWrite = async () => {
      const existing = [...model.current];
      const roll = Math.random();
      const t0 = rec.now();
      const write = (op: string, okStatus: number, method: string, id: string, body?: unknown) =>
        timed(op, async () => {
          const r = await http(root, method, `/v1/admin/reports/${id}`, body).finally(() =>
            committed(t0),
          );
          return {
            status: r.status,
            cls: r.status === okStatus ? 'ok' : classify(r.status, r.json, t0),
            detail: r.status === okStatus ? undefined : JSON.stringify(r.json),
          };
        });
      if (existing.length < 3 || (roll < 0.45 && existing.length < 12)) {
        const id = `soak_${runId}_${++seq}`;
        await write('admin_add', 201, 'PUT', id, doc(`added at ${t0}`));
      } else if (roll < 0.75) {
        const id = pick(existing).replace('query_report_', '');
        await write('admin_change', 200, 'PUT', id, doc(`changed at ${t0}`));
      } else {
        const id = pick(existing).replace('query_report_', '');
        await write('admin_remove', 204, 'DELETE', id);
      }
    };
    const markdown = readFileSync(
      path.join(ROOT, 'libs/meta-tool/examples/markdown_outline.mjs'),
      'utf8',
    );
    let proposals = 0;
    const proposeAndApprove = async () => {
      const name = `soak_outline_${runId}_${++proposals}`;
      let id: string | undefined;
      await timed('meta_propose', async () => {
        const t0 = rec.now();
        const r = await http(author, 'POST', '/v1/tools/meta_tool/call', {
          // the module names itself: it must be the name proposed, or the runtime gate refuses
          arguments: {
            name,
            code: markdown.replace("name: 'markdown_outline'", `name: '${name}'`),
            testArgs: { markdown: '# A\n## B\ntext' },
          },
        });
        const body = r.json as {
          is_error?: boolean;
          result?: { proposal_id?: string };
          error?: { code: string };
        };
        id = body?.result?.proposal_id;
        if (r.status === 200 && !body.is_error && id) return { status: r.status, cls: 'ok' };
        return {
          status: r.status,
          cls: r.status === 200 ? `tool_error:${body.error?.code}` : classify(r.status, r.json, t0),
          detail: JSON.stringify(r.json),
        };
      });
      if (!id) return;
      await timed('meta_approve', async () => {
        const t0 = rec.now();
        const r = await http(reviewer, 'POST', `/v1/admin/meta-tool/proposals/${id}/approve`, {});
        // approved and installed; a 200 saying the runtime gate refused it is not ok
        const body = r.json as { status?: string; message?: string };
        if (r.status !== 200) return { status: r.status, cls: classify(r.status, r.json, t0) };
        if (body?.status === 'installed') return { status: r.status, cls: 'ok' };
        return {
          status: r.status,
          cls: `meta_not_installed:${body?.status}`,
          detail: body?.message,
        };
      });
    };

    const worker = async () => {
      while (!stopped) {
        const roll = Math.random();
        if (roll < 0.45) await restList();
        else if (roll < 0.8) await restCall();
        else await mcpOp();
      }
    };
    const every = async (ms: number, fn: () => Promise<void>) => {
      while (!stopped) {
        await new Promise((r) => setTimeout(r, ms));
        if (!stopped) await fn().catch(() => undefined);
      }
    };

    // RSS per replica
    const rssTimer = setInterval(() => {
      for (const r of cluster!.replicas) {
        if (!r.pid) continue;
        try {
          const status = readFileSync(`/proc/${r.pid}/status`, 'utf8');
          const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
          if (kb) rec.rss.push({ t: rec.now(), replica: r.name, mb: kb / 1024 });
        } catch {
          // the replica is between lives (killed, restarting)
        }
      }
    }, 2000);

    // --- the fault script -----------------------------------------------------------------
    const fault = async (name: string, fn: () => Promise<void>) => {
      const start = rec.now();
      process.stderr.write(`[soak] ${(start / 1000).toFixed(0)} s: ${name}\n`);
      // the phase exists from its start: answers arriving during the fault belong to it
      const phase = { name, start, end: Infinity };
      rec.phases.push(phase);
      await fn();
      phase.end = rec.now();
    };
    const c = cluster;
    const faults: Array<[number, string, () => Promise<void>]> = [
      [
        0.2,
        'kill-replica',
        async () => {
          const victim = c.replicas[0];
          const gone = victim.exited();
          victim.kill('SIGKILL');
          await gone;
          // the supervisor starts it again; the fault lasts until HAProxy routes to it
          const until = Date.now() + 90_000;
          while ((await c.upReplicas().catch(() => [])).length < c.replicas.length) {
            if (Date.now() > until) throw new Error('the killed replica did not come back');
            await new Promise((r) => setTimeout(r, 200));
          }
        },
      ],
      [
        0.38,
        'restart-redis',
        async () => {
          await redis.stop();
          await redis.start();
        },
      ],
      [
        0.55,
        'terminate-listen',
        async () => {
          const r = await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'gateway-listener'`,
            [dbName],
          );
          rec.notes.push(`terminate-listen ended ${r.rowCount} LISTEN connection(s)`);
        },
      ],
      [
        0.72,
        'pause-postgres',
        async () => {
          await pgProxy.stop();
          await new Promise((r) => setTimeout(r, 5000));
          await pgProxy.start(proxyPort);
        },
      ],
    ];
    const faultScript = (async () => {
      for (const [at, name, fn] of faults) {
        const wait = at * totalMs - rec.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (stopped) return;
        await fault(name, fn).catch((err: unknown) =>
          rec.notes.push(`${name} failed: ${String(err)}`),
        );
      }
    })();

    const concurrency = 6;
    const loops = [
      ...Array.from({ length: concurrency }, worker),
      every(1500, adminWrite),
      every(20_000, proposeAndApprove),
    ];
    const progress = setInterval(
      () =>
        process.stderr.write(
          `[soak] ${(rec.now() / 1000).toFixed(0)} s, ${rec.samples.length} requests\n`,
        ),
      30_000,
    );
    await new Promise((r) => setTimeout(r, totalMs));
    stopped = true;
    clearInterval(progress);
    await Promise.all(loops);
    await faultScript;
    clearInterval(rssTimer);
    for (const judge of judgements) judge();

    // stale lists after recovery: a final, quiet check of every lister on every replica
    await new Promise((r) => setTimeout(r, GRACE_MS));
    let finalStale = 0;
    for (const w of LISTERS)
      for (const format of FORMATS)
        for (const context of CONTEXTS)
          for (let i = 0; i < replicas; i++) {
            const t0 = rec.now();
            const r = await http(w, 'GET', `/v1/tools?format=${format}&context=${context}`);
            if (
              r.status !== 200 ||
              judgeList(w, format, context, namesOf(format, r.json), t0, rec.now()) !== 'ok'
            )
              finalStale += 1;
          }
    rec.notes.push(
      `MCP sessions the clients had to open again (told "session not found"): ${sessionsLost}`,
    );
    await writeReport({
      rec,
      minutes,
      replicas,
      out: values.out!,
      finalStale,
      seesSoak: [...seesSoak],
    });
  } finally {
    await cleanup();
  }
}

async function writeReport(o: {
  rec: Recorder;
  minutes: number;
  replicas: number;
  out: string;
  finalStale: number;
  seesSoak: string[];
}): Promise<void> {
  const { rec } = o;
  const samples = rec.samples;
  const dir = path.dirname(o.out);
  const chartsDir = path.join(dir, 'soak');
  mkdirSync(chartsDir, { recursive: true });
  const faults: FaultMark[] = rec.phases.map((p) => ({
    name: p.name,
    start: p.start / 1000,
    end: Math.max(p.end, p.start + 1000) / 1000,
  }));

  // throughput and p99 per 5 s bucket
  const bucket = 5000;
  const buckets = new Map<number, Sample[]>();
  for (const s of samples) {
    const b = Math.floor(s.t / bucket);
    if (!buckets.has(b)) buckets.set(b, []);
    buckets.get(b)!.push(s);
  }
  const throughput: Array<{ t: number; value: number; series: string }> = [];
  const latency: Array<{ t: number; value: number; series: string }> = [];
  for (const [b, list] of [...buckets.entries()].sort((x, y) => x[0] - y[0])) {
    const t = (b * bucket) / 1000;
    throughput.push({
      t,
      value: list.filter((s) => s.cls === 'ok').length / (bucket / 1000),
      series: 'ok answers/s',
    });
    throughput.push({
      t,
      value: list.filter((s) => s.cls !== 'ok').length / (bucket / 1000),
      series: 'other answers/s',
    });
    const ms = list.map((s) => s.ms).sort((x, y) => x - y);
    latency.push({ t, value: percentile(ms, 50), series: 'p50' });
    latency.push({ t, value: percentile(ms, 99), series: 'p99' });
  }
  const rss = rec.rss.map((r) => ({ t: r.t / 1000, value: r.mb, series: r.replica }));
  writeFileSync(
    path.join(chartsDir, 'throughput.svg'),
    await lineChart({
      title: 'Answers per second (5 s buckets)',
      yTitle: 'answers/s',
      values: throughput,
      faults,
    }),
  );
  writeFileSync(
    path.join(chartsDir, 'latency.svg'),
    await lineChart({
      title: 'Latency p50 / p99 (5 s buckets)',
      yTitle: 'ms',
      values: latency,
      faults,
      yScale: 'log',
    }),
  );
  writeFileSync(
    path.join(chartsDir, 'rss.svg'),
    await lineChart({ title: 'RSS per replica', yTitle: 'MB', values: rss, faults }),
  );

  // tables
  const byClass = new Map<string, number>();
  for (const s of samples) byClass.set(s.cls, (byClass.get(s.cls) ?? 0) + 1);
  const byOp = new Map<string, { n: number; ok: number }>();
  for (const s of samples) {
    const e = byOp.get(s.op) ?? { n: 0, ok: 0 };
    e.n += 1;
    if (s.cls === 'ok') e.ok += 1;
    byOp.set(s.op, e);
  }
  const phases = [...new Set(samples.map((s) => s.phase))];
  const phaseRows = phases.map((p) => {
    const list = samples.filter((s) => s.phase === p);
    const ms = list.map((s) => s.ms).sort((x, y) => x - y);
    const bad = list.filter((s) => s.cls !== 'ok').length;
    return `| ${p} | ${list.length} | ${bad} | ${percentile(ms, 50).toFixed(1)} | ${percentile(ms, 99).toFixed(1)} |`;
  });
  const unexpected5xx = samples.filter(
    (s) => s.status >= 500 && s.cls !== '503_unavailable_in_pause',
  ).length;
  const expected503 = byClass.get('503_unavailable_in_pause') ?? 0;
  const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, 10);
  const staleDuring = samples.filter((s) => s.cls === 'stale_list' && s.phase !== 'steady').length;
  const staleSteady = samples.filter((s) => s.cls === 'stale_list' && s.phase === 'steady').length;
  const wrong = byClass.get('wrong_list') ?? 0;
  const rssBy = new Map<string, number[]>();
  for (const r of rec.rss.filter((x) => x.t > rec.warmupEnd)) {
    if (!rssBy.has(r.replica)) rssBy.set(r.replica, []);
    rssBy.get(r.replica)!.push(r.mb);
  }
  const rssRows = [...rssBy.entries()].map(([name, mbs]) => {
    const third = Math.max(1, Math.floor(mbs.length / 3));
    const first = mbs.slice(0, third);
    const last = mbs.slice(-third);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return `| ${name} | ${avg(first).toFixed(0)} | ${avg(last).toFixed(0)} | ${Math.max(...mbs).toFixed(0)} |`;
  });
  const total = samples.length;
  const md = `# Soak: ${o.minutes} min, ${o.replicas} replicas behind HAProxy, with faults

Produced by \`npm run soak -- --minutes ${o.minutes} --replicas ${o.replicas}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC
(2-core machine shared with other work; figures are this run's). Charts are drawn by vega-lite
(rendered to SVG by vega), faults shaded in red.

## Targets

| target | result |
| --- | --- |
| 5xx other than a clear 503 during the Postgres pause: 0 | **${unexpected5xx}** (clear 503s, \`DATA_UNAVAILABLE\`/\`DATABASE_UNAVAILABLE\` from a replica or \`SERVICE_UNAVAILABLE\` from HAProxy, in the pause and its recovery window: ${expected503}) |
| stale lists after recovery (steady phases, and a final check of every lister × format × context on every replica): 0 | **${staleSteady} + ${o.finalStale}** (within a fault or its ${RECOVERY_MS / 1000} s recovery window: ${staleDuring}) |
| lists with a wrong demo catalog (any phase): 0 | **${wrong}** |
| RSS flat after warm-up | see the table and chart below |

## Traffic

${total} requests (${(total / (o.minutes * 60)).toFixed(1)}/s) through the load balancer, 6 concurrent clients plus one
admin writer (every 1.5 s) and a tool author/reviewer pair (every 20 s); 3 long-lived MCP sessions.

| operation | requests | ok |
| --- | --- | --- |
${[...byOp.entries()]
  .sort()
  .map(([op, e]) => `| ${op} | ${e.n} | ${e.ok} |`)
  .join('\n')}

### Answers by class

| class | count |
| --- | --- |
${[...byClass.entries()]
  .sort((a, b) => b[1] - a[1])
  .map(([c, n]) => `| ${c} | ${n} |`)
  .join('\n')}

\`ok\`: the answer was right (a list equal to the catalog at some moment between ${GRACE_MS / 1000} s
before the request and its answer; a call without error). \`network:*\`: the client got no HTTP
answer. \`tool_data_unavailable_in_pause\`: a call answered \`DATA_UNAVAILABLE\` while Postgres was
paused.

## Faults

| fault | at (s) | lasted (s) |
| --- | --- | --- |
${rec.phases.map((p) => `| ${p.name} | ${(p.start / 1000).toFixed(1)} | ${((p.end - p.start) / 1000).toFixed(1)} |`).join('\n')}

${rec.notes.map((n) => `- ${n}`).join('\n')}

## Latency per phase (ms)

A fault's phase runs from its start to ${RECOVERY_MS / 1000} s after it ended; a request belongs to the phase
in which it started (a call started just before the Postgres pause that answered
\`DATA_UNAVAILABLE\` is counted in \`steady\`, classed by its overlap with the pause).

| phase | requests | not ok | p50 | p99 |
| --- | --- | --- | --- | --- |
${phaseRows.join('\n')}

Example of each failure class:

${[...rec.examples.entries()].map(([c, d]) => `- \`${c}\`: \`${d.replace(/`/g, "'")}\``).join('\n')}

Slowest requests:

| op | phase | at (s) | ms | class |
| --- | --- | --- | --- | --- |
${slowest.map((x) => `| ${x.op} | ${x.phase} | ${(x.t / 1000).toFixed(1)} | ${x.ms.toFixed(0)} | ${x.cls} |`).join('\n')}

## RSS per replica after warm-up (MB)

| replica | first third | last third | max |
| --- | --- | --- | --- |
${rssRows.join('\n')}

## Charts

![throughput](soak/throughput.svg)

![latency](soak/latency.svg)

![rss](soak/rss.svg)

Listers and contexts that see the soak's reports (read at start with a probe report):
${o.seesSoak.join(', ')}.
`;
  writeFileSync(o.out, md);
  writeFileSync(
    path.join(ROOT, '.data', 'soak', 'last-samples.json'),
    JSON.stringify({ phases: rec.phases, samples }),
  );
  process.stderr.write(`[soak] wrote ${path.relative(ROOT, o.out)}\n`);
  process.stdout.write(md);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
