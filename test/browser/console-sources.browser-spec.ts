import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createWarehouseDatabase, WAREHOUSE_NETWORKS } from '../support/warehouse';
import type { WarehouseDatabase } from '../support/warehouse';
import { launchChromium, screenshot, signIn } from './browser';

const ada: TokenClaims = { tenant: 'acme', user: 'ada', roles: ['admin'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

/**
 * Issue #39 item 4: data sources registered, tested, changed and removed in the console (they
 * could only be with curl), the password never in the page.
 */
describe('console Sources screen: register, test, edit, remove (Chromium)', () => {
  let gw: RunningGateway;
  let browser: Browser;
  let wh: WarehouseDatabase;
  let login: { role: string; url: string };

  beforeAll(async () => {
    [gw, browser, wh] = await Promise.all([
      startGateway({ ...WAREHOUSE_NETWORKS, DATASOURCE_KEY: randomBytes(32).toString('base64') }),
      launchChromium(),
      createWarehouseDatabase(`CREATE SCHEMA depot;
        CREATE TABLE depot.parcels (id integer PRIMARY KEY, region text);
        CREATE TABLE depot.trucks (id integer PRIMARY KEY);`),
    ]);
    login = await wh.login((r) => [
      `GRANT USAGE ON SCHEMA depot TO ${r}`,
      `GRANT SELECT ON depot.parcels, depot.trucks TO ${r}`,
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await wh?.drop();
  });

  const sourceOf = async (name: string) => {
    const res = await gw.request(`/v1/admin/datasources/${name}`, { as: ada });
    return {
      status: res.status,
      body: (await res.json().catch(() => ({}))) as { tables?: string[] },
    };
  };
  const noPassword = async (page: Page, password: string) => {
    expect(await page.content()).not.toContain(password);
    const values = await page
      .locator('input, textarea')
      .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    expect(values.join('\n')).not.toContain(password);
  };

  it('registers a source from the form, tests it, edits it and removes it; the password never shows', async () => {
    const url = new URL(login.url);
    const password = decodeURIComponent(url.password);
    url.password = '';
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, 'sources');
    try {
      await page.getByRole('button', { name: 'Register a source' }).click();
      await page.getByLabel('Source name').fill('depot');
      await page.getByLabel('Schema').fill('depot');
      await page.getByLabel(/^Connection URL/).fill(url.toString());
      await page.getByLabel(/^Password/).fill(password);
      await page.getByLabel(/^Tables the reports may read/).fill('parcels');
      await screenshot(page, 'sources-register.png');
      await page.getByRole('button', { name: 'Register source' }).click();
      await expectText(page.getByTestId('source-notice'), /Saved data source depot/);
      const row = page.locator('tr[data-source="depot"]');
      await expectText(row, /reachable/);
      await expectText(row, /schema depot: parcels/);
      expect((await sourceOf('depot')).body.tables).toEqual(['parcels']);
      await noPassword(page, password);

      await row.getByRole('button', { name: 'Test' }).click();
      await expectText(page.getByTestId('source-notice'), /depot is reachable \([\d.]+ ms/);

      // edit: the password is asked again (never sent back), the tables change
      await row.getByRole('button', { name: 'Edit' }).click();
      expect(await page.getByLabel(/^Password/).inputValue()).toBe('');
      expect(await page.getByLabel('Source name').getAttribute('readonly')).not.toBeNull();
      await page.getByLabel(/^Tables the reports may read/).fill('parcels, trucks');
      await page.getByLabel(/^Password/).fill(password);
      await page.getByRole('button', { name: 'Save source' }).click();
      await expectText(page.getByTestId('source-notice'), /Saved data source depot/);
      await expectText(row, /schema depot: parcels, trucks/);
      expect((await sourceOf('depot')).body.tables).toEqual(['parcels', 'trucks']);
      await noPassword(page, password);

      // a refusal is shown, and changes nothing: a wrong password
      await row.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel(/^Tables the reports may read/).fill('parcels');
      await page.getByLabel(/^Password/).fill('not-the-password');
      await page.getByRole('button', { name: 'Save source' }).click();
      await expectText(page.getByRole('alert'), /422 INVALID_DATASOURCE/);
      expect((await sourceOf('depot')).body.tables).toEqual(['parcels', 'trucks']);
      await page.getByRole('button', { name: 'Cancel' }).click();

      // another tenant sees none of it
      const other = await signIn(browser, gw.baseUrl, groot, 'sources');
      try {
        await other.page.getByTestId('no-sources').waitFor();
      } finally {
        await other.context.close();
      }

      await row.getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      await expectText(page.getByTestId('source-notice'), /Removed depot/);
      await page.getByTestId('no-sources').waitFor();
      expect((await sourceOf('depot')).status).toBe(404);
      await noPassword(page, password);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an edit keeps what it does not change: the caller-identity switch and the CA', async () => {
    // a CA is only read for verify-ca/verify-full; with sslmode disable it is kept, not used
    const ca = `-----BEGIN CERTIFICATE-----\n${randomBytes(48).toString('base64')}\n-----END CERTIFICATE-----\n`;
    const put = await gw.request('/v1/admin/datasources/kept', {
      method: 'PUT',
      as: ada,
      json: {
        url: login.url,
        schema: 'depot',
        tables: ['parcels'],
        pass_identity: true,
        ca_pem: ca,
      },
    });
    expect(put.status).toBe(201);
    const url = new URL(login.url);
    const password = decodeURIComponent(url.password);
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, 'sources');
    try {
      const row = page.locator('tr[data-source="kept"]');
      await expectText(row, /passes the caller's identity/);
      await row.getByRole('button', { name: 'Edit' }).click();
      expect(await page.getByLabel(/^Pass the caller's identity/).isChecked()).toBe(true);
      await page.getByLabel(/^Tables the reports may read/).fill('parcels, trucks');
      await page.getByLabel(/^Password/).fill(password);
      await page.getByRole('button', { name: 'Save source' }).click();
      await expectText(page.getByTestId('source-notice'), /Saved data source kept/);
      const saved = (await (
        await gw.request('/v1/admin/datasources/kept', { as: ada })
      ).json()) as {
        tables: string[];
        pass_identity: boolean;
        ca_pem: string | null;
      };
      expect(saved).toMatchObject({
        tables: ['parcels', 'trucks'],
        pass_identity: true,
        ca_pem: ca,
      });
      await noPassword(page, password);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await gw.request('/v1/admin/datasources/kept', { method: 'DELETE', as: ada });
    }
  });

  it('a source a report runs on is not removed: the refusal names the report', async () => {
    const put = await gw.request('/v1/admin/datasources/busy', {
      method: 'PUT',
      as: ada,
      json: { url: login.url, schema: 'depot', tables: ['parcels'] },
    });
    expect(put.status).toBe(201);
    const report = await gw.request('/v1/admin/reports/busy_parcels', {
      method: 'PUT',
      as: ada,
      json: {
        name: 'Parcels',
        description: 'Parcels per region.',
        sql_template: 'SELECT p.region FROM parcels p',
        category: 'sales',
        datasource: 'busy',
        fields: [{ name: 'region', type: 'string' }],
      },
    });
    expect(report.status).toBe(201);
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, 'sources');
    try {
      const row = page.locator('tr[data-source="busy"]');
      await row.getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
      await expectText(page.getByRole('alert'), /409 DATASOURCE_IN_USE.*busy_parcels/);
      expect((await sourceOf('busy')).status).toBe(200);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await gw.request('/v1/admin/reports/busy_parcels', { method: 'DELETE', as: ada });
      await gw.request('/v1/admin/datasources/busy', { method: 'DELETE', as: ada });
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
