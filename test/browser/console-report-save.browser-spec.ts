import { randomBytes } from 'node:crypto';
import type { Browser, Locator } from 'playwright-core';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createWarehouseDatabase, WAREHOUSE_NETWORKS } from '../support/warehouse';
import type { WarehouseDatabase } from '../support/warehouse';
import { launchChromium, screenshot, signIn } from './browser';

const ada: TokenClaims = { tenant: 'acme', user: 'ada', roles: ['admin'] };

/** A report on a data source with every optional member of the document set. */
const FULL = {
  name: 'Shipments per region',
  description: 'Shipments of each region, from the warehouse.',
  sql_template:
    'SELECT s.region, count(*) AS shipments FROM shipments s WHERE (:region IS NULL OR s.region = :region) GROUP BY s.region ORDER BY s.region',
  category: 'sales',
  status: 'active',
  datasource: 'wh',
  synonyms: ['deliveries', 'parcels'],
  example_questions: ['How many parcels went north?'],
  chart: { type: 'bar', x: 'region', y: ['shipments'] },
  run_as_task: true,
  cache_ttl_seconds: 120,
  filters: [
    {
      name: 'region',
      type: 'enum',
      description: 'a region',
      required: false,
      enum_values: ['north', 'south'],
      default: null,
    },
  ],
  fields: [
    { name: 'region', type: 'string', description: 'the region' },
    { name: 'shipments', type: 'integer', description: 'how many' },
  ],
};

/**
 * Issue #39: a console save must not wipe what the form did not show (it reset `chart` and
 * `run_as_task`), and a report on a data source must be judged against that source's tables
 * (it was judged against the gateway's own, and Save stayed disabled).
 */
describe('console Author keeps every member of a report (Chromium)', () => {
  let gw: RunningGateway;
  let browser: Browser;
  let wh: WarehouseDatabase;

  beforeAll(async () => {
    [gw, browser, wh] = await Promise.all([
      startGateway({ ...WAREHOUSE_NETWORKS, DATASOURCE_KEY: randomBytes(32).toString('base64') }),
      launchChromium(),
      createWarehouseDatabase(`CREATE SCHEMA logistics;
        CREATE TABLE logistics.shipments (id integer PRIMARY KEY, region text NOT NULL);
        INSERT INTO logistics.shipments SELECT g, CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END FROM generate_series(1, 9) g;`),
    ]);
    const reader = await wh.login((r) => [
      `GRANT USAGE ON SCHEMA logistics TO ${r}`,
      `GRANT SELECT ON logistics.shipments TO ${r}`,
    ]);
    const source = await gw.request('/v1/admin/datasources/wh', {
      method: 'PUT',
      as: ada,
      json: { url: reader.url, schema: 'logistics', tables: ['shipments'] },
    });
    expect(source.status).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await wh?.drop();
  });

  const stored = async (id: string) =>
    (
      (await (await gw.request(`/v1/admin/reports/${id}`, { as: ada })).json()) as {
        report: Record<string, unknown>;
        status: { version: number };
      }
    ).report;

  it('a save with every optional member set keeps them all; an edit changes only what was edited', async () => {
    const put = await gw.request('/v1/admin/reports/shipments_full', {
      method: 'PUT',
      as: ada,
      json: FULL,
    });
    expect(put.status).toBe(201);
    const before = await stored('shipments_full');
    const { context, page, problems } = await signIn(
      browser,
      gw.baseUrl,
      ada,
      'author/shipments_full',
    );
    try {
      // judged against the source's tables: accepted, so Save is enabled
      await expectText(page.getByTestId('verdict'), /accepted: query_report_shipments_full/);
      await expectValue(page.getByLabel('Data source'), 'wh');
      expect(await page.getByLabel(/run as a task/).isChecked()).toBe(true);
      await expectValue(page.getByLabel('chart type'), 'bar');
      await expectValue(page.getByLabel('Synonyms (one per line)'), 'deliveries\nparcels');
      const save = page.getByRole('button', { name: 'Save (replace)' });
      await save.click();
      await expectText(page.getByTestId('saved'), /Saved shipments_full/);
      expect(await stored('shipments_full')).toEqual(before);

      // an edit: the name only; then a preview of the chart hint through "Try it"
      await page.getByLabel('Name', { exact: true }).fill('Shipments per region (edited)');
      await expectText(page.getByTestId('verdict'), /accepted/);
      await page.getByRole('button', { name: 'Try it' }).click();
      await expectText(page.getByTestId('try-result'), /north/);
      // the preview is drawn with the hint: a bar chart
      expect(await page.getByTestId('try-chart').getAttribute('alt')).toMatch(/as a bar chart/);
      await screenshot(page, 'author-options.png');
      await save.click();
      await expectText(page.getByTestId('saved'), /Saved shipments_full \(version/);
      expect(await stored('shipments_full')).toEqual({
        ...before,
        name: 'Shipments per region (edited)',
      });

      // the optional members edited in the form: a line chart with a series, no task
      await page.getByLabel('chart type').selectOption('line');
      await page.getByLabel(/run as a task/).uncheck();
      await page.getByLabel('Example questions (one per line)').fill('Parcels per region?');
      await expectText(page.getByTestId('verdict'), /accepted/);
      await save.click();
      await eventually(async () =>
        expect(await stored('shipments_full')).toEqual({
          ...before,
          name: 'Shipments per region (edited)',
          chart: { type: 'line', x: 'region', y: ['shipments'] },
          example_questions: ['Parcels per region?'],
          run_as_task: undefined,
        }),
      );
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('publishes a new report on a data source from the form', async () => {
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, 'author');
    try {
      await page.getByLabel('Id').fill('shipments_new');
      await page.getByLabel('Category').fill('sales');
      await page.getByLabel('Name', { exact: true }).fill('Shipments (new)');
      await page.getByLabel('Business description (what the model reads)').fill('All shipments.');
      await page.getByRole('button', { name: 'Add field' }).click();
      await page.getByLabel('field 1 name').fill('region');
      await page
        .getByRole('textbox', { name: 'SQL template' })
        .fill('SELECT s.region FROM shipments s');
      // on the gateway's own database the table is not whitelisted; on the source it is
      await expectText(page.getByTestId('verdict'), /shipments/);
      await page.getByLabel('Data source').selectOption('wh');
      await expectText(page.getByTestId('verdict'), /accepted: query_report_shipments_new/);
      await page.getByRole('button', { name: 'Save (publish)' }).click();
      await expectText(page.getByTestId('saved'), /Saved shipments_new/);
      expect(await stored('shipments_new')).toMatchObject({ datasource: 'wh' });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

async function expectText(locator: Locator, pattern: RegExp): Promise<void> {
  await eventually(
    async () => {
      const text = (await locator.first().innerText({ timeout: 5000 })).trim();
      if (!pattern.test(text)) throw new Error(`"${text.slice(0, 400)}" does not match ${pattern}`);
    },
    { timeoutMs: 10_000 },
  );
}

async function expectValue(locator: Locator, value: string): Promise<void> {
  await eventually(async () => expect(await locator.inputValue()).toBe(value), {
    timeoutMs: 10_000,
  });
}
