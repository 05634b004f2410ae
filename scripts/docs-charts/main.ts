/**
 * `npm run docs:charts`: redraws the pictures of docs/charts from the demo catalog (#40), the
 * ones docs/report-authoring.md#charts and docs/mcp.md show. Not part of `npm test` (a test
 * run never rewrites tracked files): run it after a change to the charts or the demo data.
 *
 * - `<report>.svg`: every demo report's first page as `?chart=svg` answers it (the gateway's
 *   own spec builder and SVG worker), called as an admin of `acme` (region claim `east`);
 * - `view-bar.png`, `view-line.png`, `view-table.png`: the MCP Apps View in Chromium, hosted
 *   as the browser test hosts it.
 *
 * It runs what `npm start` runs (built first when stale) on a scratch copy of the test
 * template database (the demo seed), dropped after. Needs what the browser tests need:
 * Postgres (TEST_DATABASE_URL or the local server) and Debian's chromium.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SignJWT } from 'jose';
import { chromium } from 'playwright-core';
import { connectViewHost, viewState } from '../../test/browser/chart-view-host';
import { CHROMIUM } from '../../test/browser/chromium-path';
import { ensureBuilt, runBuilt } from '../../test/support/built-gateway';
import { eventually } from '../../test/support/eventually';
import { findTestServers } from '../../test/support/servers';
import { ensureTemplate, holdTemplate, templateName } from '../../test/support/template-database';
import { createTestDatabase } from '../../test/support/test-database';

const ROOT = path.resolve(__dirname, '../..');
const OUT = path.join(ROOT, 'docs/charts');
const SECRET = randomBytes(32).toString('hex');
/** Arguments a report needs to show something (a required filter). */
const ARGS: Record<string, Record<string, unknown>> = { order_lookup: { order_id: 7 } };
const VIEW_PICTURES: Array<[tool: string, file: string]> = [
  ['query_report_sales_by_region', 'view-bar.png'],
  ['query_report_revenue_by_month', 'view-line.png'],
  ['query_report_product_catalog', 'view-table.png'],
];

/** An admin of acme in the east (alice books orders, so my_orders has rows). */
const token = () =>
  new SignJWT({ tenant: 'acme', roles: ['admin'], region: 'east' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));

async function reportSvgs(baseUrl: string): Promise<string[]> {
  const headers = { authorization: `Bearer ${await token()}` };
  const list = (await (await fetch(`${baseUrl}/v1/tools?format=openai`, { headers })).json()) as {
    tools: Array<{ function: { name: string } }>;
  };
  const written: string[] = [];
  for (const { function: f } of list.tools) {
    if (!f.name.startsWith('query_report_')) continue;
    const id = f.name.slice('query_report_'.length);
    const res = await fetch(`${baseUrl}/v1/tools/${f.name}/call?chart=svg`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: ARGS[id] ?? {} }),
    });
    const body = (await res.json()) as { chart?: { svg?: string; error?: string } };
    if (!body.chart?.svg) throw new Error(`${id}: no chart (${body.chart?.error ?? res.status})`);
    writeFileSync(path.join(OUT, `${id}.svg`), body.chart.svg);
    written.push(`${id}.svg`);
  }
  return written;
}

async function viewPictures(baseUrl: string): Promise<string[]> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const host = await connectViewHost(baseUrl, await token());
  try {
    for (const [tool, file] of VIEW_PICTURES) {
      const result = await host.client.callTool({ name: tool, arguments: {} });
      const page = await host.open(browser, tool, result);
      try {
        if ((await viewState(page.page, eventually)) !== 'drawn')
          throw new Error(`${tool}: the View did not draw`);
        await page.page.screenshot({ path: path.join(OUT, file), fullPage: true });
      } finally {
        await page.close();
      }
    }
  } finally {
    await host.close();
    await browser.close();
  }
  return VIEW_PICTURES.map(([, file]) => file);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  ensureBuilt();
  const servers = await findTestServers();
  process.env.TEST_DATABASE_URL = servers.postgresUrl;
  const release = await holdTemplate(servers.postgresUrl, templateName());
  process.env.GW_TEST_TEMPLATE = await ensureTemplate(servers.postgresUrl);
  const db = await createTestDatabase();
  const scratch = path.join(ROOT, `.data/docs-charts-${process.pid}`);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  mkdirSync(OUT, { recursive: true });
  let written: string[] | undefined;
  let failure: unknown;
  try {
    const run = await runBuilt(
      ROOT,
      {
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: db.url,
        REDIS_URL: '',
        AUTH_JWT_SECRET: SECRET,
        DATA_DIR: path.join(scratch, 'data'),
        GENERATED_TOOLS_DIR: path.join(scratch, 'tools'),
      },
      async () => {
        try {
          written = [...(await reportSvgs(baseUrl)), ...(await viewPictures(baseUrl))];
        } catch (err) {
          failure = err;
        }
      },
    );
    if (failure) throw failure;
    if (!written) throw new Error(`the gateway did not start:\n${run.stderr || run.stdout}`);
  } finally {
    await db.drop();
    await release();
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(`docs/charts: ${written.join(', ')}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
