import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { dropUnusedTemplates, holdTemplate } from '../support/template-database';

/**
 * `npm test` on a machine whose Postgres and Redis serve other work too: it keeps to a Redis
 * database number of its own and drops the template databases it made once no run uses them.
 */
describe('the suite keeps to its own (e2e, real Postgres and Redis)', () => {
  const server = process.env.TEST_DATABASE_URL!;

  it('uses a Redis database of its own, never db 0', () => {
    const db = new URL(process.env.TEST_REDIS_URL!).pathname.replace('/', '');
    expect(Number(db)).toBeGreaterThan(0);
  });

  it('drops a template database once no run holds it, and not while one does', async () => {
    const name = `gw_template_hygiene${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    const exists = async () =>
      (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
      const release = await holdTemplate(server, name);
      expect(await dropUnusedTemplates(server)).not.toContain(name);
      expect(await exists()).toBe(true);
      await release();
      expect(await dropUnusedTemplates(server)).toContain(name);
      expect(await exists()).toBe(false);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
    }
  });

  it('never drops the template the running suite uses', async () => {
    await dropUnusedTemplates(server);
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [
        process.env.GW_TEST_TEMPLATE,
      ]);
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
  });

  it('reaches the second Postgres server only through TEST_WAREHOUSE_URL (no test hard-codes its port)', () => {
    const root = path.resolve(__dirname, '..');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (f) =>
        f.endsWith('.ts') &&
        ![path.join(root, 'support/warehouse.ts'), __filename].includes(path.join(root, f)),
    );
    const hardCoded = files.filter((f) =>
      /\b5499\b|WAREHOUSE_PORT/.test(readFileSync(path.join(root, f), 'utf8')),
    );
    expect(hardCoded).toEqual([]);
  });
});
