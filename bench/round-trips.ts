/**
 * How a report call reaches Postgres: three ways, measured in one run on one database (the ADR
 * docs/decisions/0001-one-round-trip-per-call.md cites it). Client CPU per call from
 * process.cpuUsage, Postgres CPU per call from /proc of its backends, calls/s at c=10.
 *
 *   npx tsx bench/round-trips.ts [seconds per run, default 4] [rounds, default 3]
 *
 * - three-trips: the executor before this change (setup script, query, ROLLBACK)
 * - pipelined:   the executor now (GuardedRead: setup + query + ROLLBACK, one write, one Sync)
 * - login-role:  the settings at connection level, as a per-tenant login role with
 *                ALTER ROLE ... SET would have them (options -c ...), query alone
 * - login-role-named: the same with a named prepared statement (parse and plan once per
 *                connection): the saving per-report named statements could bring
 * - pipelined-named: the executor since ADR 0005 (GuardedRead with the report's named
 *                statement: setup + Bind/Execute of a statement parsed once per connection)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg as osLoad } from 'node:os';
import { connectPostgres, namedStatement } from '@app/db';
import type { NamedStatement } from '@app/db';
import pg from 'pg';
import { sessionSetup } from '@app/registry';
import { ensureTemplate, databaseUrl } from '../test/support/template-database';

const SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';
const SQL = `SELECT * FROM (
SELECT o.id AS order_id, o.order_date, c.name AS customer_name, o.status, p.name AS product, i.quantity, i.unit_price
FROM orders o
JOIN customers c ON c.id = o.customer_id
JOIN order_items i ON i.order_id = o.id
JOIN products p ON p.id = i.product_id
WHERE o.id = $1::bigint
ORDER BY i.line_no
) AS report_rows LIMIT $2 OFFSET $3`;
const LIMITS = { statementTimeoutMs: 5000, workMemKb: 8192, tempFileLimitKb: 262144 };
const POOL = 10;
const LOOKUP = namedStatement('acme', 'tenant_acme', 'order_lookup', 1, SQL);
const CONCURRENCY = 10;

const loadavg = () =>
  osLoad()
    .map((l) => l.toFixed(1))
    .join(' ');

type Call = (orderId: number) => Promise<number>;

function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes(' postgres gw_rt_')) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // a backend that ended while we read
    }
  }
  return ticks * 10;
}

async function load(call: Call, seconds: number) {
  const until = Date.now() + seconds * 1000;
  let calls = 0;
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpuMs();
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      let id = 1 + w;
      while (Date.now() < until) {
        await call((id % 50_000) + 1);
        id += CONCURRENCY;
        calls++;
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return {
    rps: calls / elapsed,
    clientUs: (cpu.user + cpu.system) / calls,
    postgresUs: ((postgresCpuMs() - pg0) * 1000) / calls,
  };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 4);
  const rounds = Number(process.argv[3] ?? 3);
  const template = await ensureTemplate(SERVER);
  const name = `gw_rt_${Date.now()}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const url = databaseUrl(SERVER, name);
  const handle = connectPostgres(url, POOL);
  const threeTripsPool = new pg.Pool({ connectionString: url, max: POOL });
  const loginPool = new pg.Pool({
    connectionString: url,
    max: POOL,
    options:
      '-c default_transaction_read_only=on -c search_path=tenant_acme,pg_catalog,pg_temp -c statement_timeout=5000 -c work_mem=8MB -c role=gw_reader_acme',
  });
  // DROP DATABASE ... WITH (FORCE) at the end ends idle connections; that is expected
  for (const pool of [threeTripsPool, loginPool]) pool.on('error', () => undefined);
  const setup = sessionSetup('acme', 'tenant_acme', LIMITS);
  const script = setup.join('; ');
  /** the executor's way: one pipelined write, with the report's named statement or unnamed */
  const guarded = async (id: number, statement?: NamedStatement) => {
    const r = await handle.guardedRead({
      setup,
      text: SQL,
      values: [id, 21, 0],
      maxBytes: 256 * 1024,
      timeoutMs: 6000,
      statement,
    });
    return r.rows.length;
  };
  const ways: Record<string, Call> = {
    'three-trips': async (id) => {
      const client = await threeTripsPool.connect();
      try {
        await client.query(script);
        const r = await client.query({ text: SQL, values: [id, 21, 0] });
        return r.rows.length;
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    },
    pipelined: (id) => guarded(id),
    'pipelined-named': (id) => guarded(id, LOOKUP),
    'login-role': async (id) => {
      const r = await loginPool.query({ text: SQL, values: [id, 21, 0], rowMode: 'array' });
      return r.rows.length;
    },
    // the same with a named prepared statement (parsed and planned once per connection): what
    // per-report named statements would save on top of any of the ways above
    'login-role-named': async (id) => {
      const r = await loginPool.query({
        name: 'order_lookup',
        text: SQL,
        values: [id, 21, 0],
        rowMode: 'array',
      });
      return r.rows.length;
    },
  };
  const names = Object.keys(ways);
  // same answers first
  const counts = await Promise.all(names.map((n) => ways[n](7)));
  if (new Set(counts).size !== 1) throw new Error(`answers differ: ${counts.join(', ')}`);
  for (const n of names) await load(ways[n], 1); // warm-up
  const results: Record<string, Array<Awaited<ReturnType<typeof load>>>> = {};
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const n of order) (results[n] ??= []).push(await load(ways[n], seconds));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(results['three-trips'].map((x) => x.rps));
  const baseCpu = median(results['three-trips'].map((x) => x.clientUs));
  const basePg = median(results['three-trips'].map((x) => x.postgresUs));
  console.log(
    `| way | calls/s (c=${CONCURRENCY}) | vs three-trips | client CPU µs/call | vs | Postgres CPU µs/call | vs |`,
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const n of names) {
    const rps = median(results[n].map((x) => x.rps));
    const cpu = median(results[n].map((x) => x.clientUs));
    const pgc = median(results[n].map((x) => x.postgresUs));
    console.log(
      `| ${n} | ${rps.toFixed(0)} | ${(rps / base).toFixed(2)}x | ${cpu.toFixed(0)} | ${(cpu / baseCpu).toFixed(2)}x | ${pgc.toFixed(0)} | ${(pgc / basePg).toFixed(2)}x |`,
    );
  }
  await Promise.all([handle.close(), threeTripsPool.end(), loginPool.end()]);
  console.log(`(${rounds} rounds of ${seconds} s, order rotated; medians; load ${loadavg()})`);
  await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
  await admin.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
