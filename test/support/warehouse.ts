import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { eventually } from './eventually';

/**
 * A second Postgres server for the tests: a tenant's own warehouse (issue #30). TEST_WAREHOUSE_URL
 * when set; otherwise a cluster named `warehouse` on port 5499 of this machine's Postgres,
 * created and started on demand (idempotent: a later run reuses it). Its superuser logs in over
 * TCP with a password (scram), so the data source logins the tests make are checked for real.
 * Only that cluster is ever started here; the main server (5432) is never touched.
 */
const DEFAULT_PORT = 5499;

/**
 * The warehouse cluster listens on loopback, which a gateway refuses for data sources by default
 * (issue #37): a gateway that registers sources on it is started with this setting.
 */
export const WAREHOUSE_NETWORKS = { DATASOURCE_ALLOWED_NETWORKS: '127.0.0.0/8' };
const CLUSTER = 'warehouse';
const SUPERUSER_PASSWORD = 'warehouse-superuser-test-only';

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function postgresVersion(): string {
  const versions = readdirSync('/etc/postgresql').filter((v) => /^\d+$/.test(v));
  if (versions.length === 0) throw new Error('no Postgres under /etc/postgresql');
  return versions.sort((a, b) => Number(b) - Number(a))[0];
}

/** Creates (once) and starts the warehouse cluster; needs root or the postgres user. */
function startCluster(): void {
  const version = postgresVersion();
  if (!existsSync(`/etc/postgresql/${version}/${CLUSTER}`)) {
    const pwfile = `/tmp/gw-warehouse-pw-${process.pid}`;
    writeFileSync(pwfile, SUPERUSER_PASSWORD, { mode: 0o644 });
    execFileSync(
      'pg_createcluster',
      [
        version,
        CLUSTER,
        '-p',
        String(DEFAULT_PORT),
        '--',
        '--auth-host=scram-sha-256',
        '--auth-local=peer',
        `--pwfile=${pwfile}`,
      ],
      { stdio: 'ignore', timeout: 120_000 },
    );
  }
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, CLUSTER, 'start'], {
    stdio: 'ignore',
    timeout: 60_000,
  });
}

/** The warehouse's superuser URL (database `postgres`), the server started if need be. */
export async function warehouseAdminUrl(): Promise<string> {
  if (process.env.TEST_WAREHOUSE_URL) return process.env.TEST_WAREHOUSE_URL;
  if (!(await reachable(DEFAULT_PORT))) {
    // Test files run in parallel: another may be creating or starting the cluster right now,
    // and then these commands fail ("already exists", "already running"). What counts is that
    // the server answers soon after; only if it does not is the failure reported.
    let failure: unknown;
    try {
      startCluster();
    } catch (err) {
      failure = err;
    }
    try {
      await eventually(
        async () => {
          if (!(await reachable(DEFAULT_PORT))) throw new Error('warehouse not up yet');
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
    } catch (err) {
      throw failure ?? err;
    }
  }
  return `postgres://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${DEFAULT_PORT}/postgres`;
}

/**
 * Host and port of the warehouse server, from the same setting as every other warehouse test
 * (TEST_WAREHOUSE_URL, else the local cluster): for a TCP proxy put in front of it.
 */
export async function warehouseServer(): Promise<{ host: string; port: number }> {
  const url = new URL(await warehouseAdminUrl());
  return { host: url.hostname, port: Number(url.port || 5432) };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export function withLogin(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/** A database of its own on the warehouse, and the logins a test made there. */
export interface WarehouseDatabase {
  /** superuser URL of this database */
  adminUrl: string;
  name: string;
  /** runs SQL as the superuser in this database */
  run(text: string): Promise<void>;
  /** a new login (cluster-wide role, dropped with the database) and its URL */
  login(
    grants: (role: string) => string[],
    options?: string,
  ): Promise<{ role: string; url: string }>;
  drop(): Promise<void>;
}

async function asSuperuser(url: string, fn: (c: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on the warehouse (each test file its own), made by `setup` SQL. */
export async function createWarehouseDatabase(setup: string): Promise<WarehouseDatabase> {
  const root = await warehouseAdminUrl();
  const name = `wh_${randomBytes(5).toString('hex')}`;
  await asSuperuser(root, (c) => c.query(`CREATE DATABASE "${name}"`));
  const adminUrl = withDatabase(root, name);
  await asSuperuser(adminUrl, (c) => c.query(setup));
  const roles: string[] = [];
  return {
    adminUrl,
    name,
    run: (text) => asSuperuser(adminUrl, (c) => c.query(text)),
    async login(grants, options = '') {
      const role = `${name}_${roles.length}`;
      const password = randomBytes(12).toString('hex');
      roles.push(role);
      await asSuperuser(adminUrl, async (c) => {
        await c.query(`CREATE ROLE "${role}" LOGIN PASSWORD '${password}' ${options}`);
        await c.query(`GRANT CONNECT ON DATABASE "${name}" TO "${role}"`);
        for (const g of grants(`"${role}"`)) await c.query(g);
      });
      return { role, url: withLogin(adminUrl, role, password) };
    },
    async drop() {
      await asSuperuser(root, async (c) => {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        for (const role of roles) await c.query(`DROP ROLE IF EXISTS "${role}"`);
      });
    },
  };
}

/** A warehouse of ten `north` orders in schema `sales`, for the data source fault tests. */
export const NORTH_ORDERS_SQL = `
  CREATE SCHEMA sales;
  CREATE TABLE sales.orders (id integer PRIMARY KEY, region text NOT NULL, total numeric);
  INSERT INTO sales.orders SELECT g, 'north', g FROM generate_series(1, 10) g;`;

/** The grants of a read-only login on that warehouse. */
export const readSalesOrders = (role: string): string[] => [
  `GRANT USAGE ON SCHEMA sales TO ${role}`,
  `GRANT SELECT ON sales.orders TO ${role}`,
];

/** The report `wh_orders` on the data source `wh` (PUT /v1/admin/reports/wh_orders). */
export const WH_ORDERS_REPORT = {
  name: 'Warehouse orders',
  description: 'Orders of a region, from the warehouse.',
  sql_template: 'SELECT o.id, o.total FROM orders o WHERE o.region = :region ORDER BY o.id',
  category: 'sales',
  datasource: 'wh',
  filters: [{ name: 'region', type: 'string', required: true }],
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'total', type: 'number' },
  ],
};
