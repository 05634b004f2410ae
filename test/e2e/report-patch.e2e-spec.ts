import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

/** A report with every optional member of the document set. */
const FULL = {
  name: 'Big orders',
  description: 'Orders above an amount, newest first.',
  sql_template:
    'SELECT o.id AS order_id, o.total_amount FROM orders o WHERE o.total_amount >= :min_amount ORDER BY o.id DESC',
  category: 'sales',
  status: 'active',
  synonyms: ['large orders', 'whales'],
  example_questions: ['Which orders were above 500?'],
  chart: { type: 'bar', x: 'order_id', y: ['total_amount'] },
  run_as_task: true,
  filters: [
    {
      name: 'min_amount',
      type: 'number',
      description: 'smallest total in USD',
      required: true,
      enum_values: null,
      default: null,
    },
  ],
  fields: [
    { name: 'order_id', type: 'integer', description: 'order number' },
    { name: 'total_amount', type: 'number', description: 'total in USD' },
  ],
};

interface View {
  report: Record<string, unknown>;
  status: { version: number };
}

/**
 * PATCH /v1/admin/reports/{id} (issue #39): a JSON Merge Patch of the report document, so a
 * client (the console) that changes one member never wipes the others, those it does not know
 * included; judged whole like PUT, refused whole, tenant-isolated, admin-only, documented.
 */
describe('admin reports API: partial update (PATCH, e2e, real Postgres)', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const put = async (id: string, body: unknown) => {
    const res = await gw.request(`/v1/admin/reports/${id}`, {
      method: 'PUT',
      as: root,
      json: body,
    });
    expect(res.status).toBe(201);
  };
  const patch = (who: TokenClaims, id: string, body: unknown) =>
    gw.request(`/v1/admin/reports/${id}`, { method: 'PATCH', as: who, json: body });
  const get = async (id: string) =>
    (await (await gw.request(`/v1/admin/reports/${id}`, { as: root })).json()) as View;

  it('changes the members it names and keeps every other one (chart, run_as_task, synonyms...)', async () => {
    await put('patch_keeps', FULL);
    const res = await patch(root, 'patch_keeps', { name: 'Big orders (renamed)' });
    expect(res.status).toBe(200);
    const view = (await res.json()) as View;
    expect(view.report).toEqual({ id: 'patch_keeps', ...FULL, name: 'Big orders (renamed)' });
    expect((await get('patch_keeps')).report).toEqual(view.report);
  });

  it('an empty patch (a console save with nothing changed) keeps the document as it was', async () => {
    await put('patch_empty', FULL);
    const before = await get('patch_empty');
    const res = await patch(root, 'patch_empty', {});
    expect(res.status).toBe(200);
    // nothing written: the same document at the same version
    expect(await get('patch_empty')).toEqual(before);
  });

  it('null resets an optional member; application/merge-patch+json is accepted', async () => {
    await put('patch_null', FULL);
    const res = await gw.request('/v1/admin/reports/patch_null', {
      method: 'PATCH',
      as: root,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ chart: null, run_as_task: null }),
    });
    expect(res.status).toBe(200);
    const { report } = await get('patch_null');
    expect(report.chart).toBeUndefined();
    expect(report.run_as_task).toBeUndefined();
    expect(report.synonyms).toEqual(FULL.synonyms);
  });

  it('a patch whose result is invalid is refused whole (422) and changes nothing', async () => {
    await put('patch_bad', FULL);
    const before = await get('patch_bad');
    for (const body of [
      { name: '', synonyms: ['x'] },
      { chart: { type: 'bar', x: 'no_such_field' } },
      { sql_template: 'DELETE FROM orders' },
      { unknown_member: 1 },
      ['not', 'an', 'object'],
      { id: 'another_id' },
    ]) {
      const res = await patch(root, 'patch_bad', body);
      expect([res.status, JSON.stringify(body)]).toEqual([422, JSON.stringify(body)]);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_REPORT');
    }
    expect(await get('patch_bad')).toEqual(before);
  });

  it('two patches of different members at once both land (no lost update)', async () => {
    await put('patch_race', FULL);
    const results = await Promise.all([
      patch(root, 'patch_race', { name: 'Renamed at once' }),
      patch(root, 'patch_race', { synonyms: ['concurrent'] }),
      patch(root, 'patch_race', { example_questions: ['Also at once?'] }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await get('patch_race')).report).toMatchObject({
      name: 'Renamed at once',
      synonyms: ['concurrent'],
      example_questions: ['Also at once?'],
      chart: FULL.chart,
      run_as_task: true,
    });
  });

  it('a missing report is 404; a non-admin is 403; another tenant cannot patch it', async () => {
    await put('patch_isolated', FULL);
    expect((await patch(root, 'no_such_report', { name: 'x' })).status).toBe(404);
    expect((await patch(alice, 'patch_isolated', { name: 'x' })).status).toBe(403);
    const other = await patch(groot, 'patch_isolated', { name: 'globex was here' });
    expect(other.status).toBe(404);
    expect((await get('patch_isolated')).report.name).toBe(FULL.name);
  });

  it('is in the OpenAPI document with its merge-patch body schema', async () => {
    const doc = (await (await gw.request('/docs/json')).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: object }>>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const operation = doc.paths['/v1/admin/reports/{id}'].patch;
    expect(JSON.stringify(operation.requestBody)).toContain('#/components/schemas/ReportPatch');
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '404', '409', '422']),
    );
    const patchSchema = doc.components.schemas.ReportPatch;
    expect(Object.keys(patchSchema.properties).sort()).toEqual(
      Object.keys(doc.components.schemas.ReportDocument.properties).sort(),
    );
  });
});
