import { initSqlParser, reportToolName } from '@app/templates';
import {
  accessRecords,
  storedReport,
  TENANT,
  tenantCatalog,
} from '../catalog/fixtures.spec-helper';
import { ReportSet } from '../catalog/model/report-set';
import { admitReport } from '../catalog/judge/admit-report';
import { TenantCatalog } from '../catalog/model/tenant-catalog';
import { AccessPolicy } from './access-policy';
import { BuiltinTools } from '../listing/builtin-tools';
import type { CatalogService } from '../listing/catalog.service';
import { salesCatalog } from '../listing/fixtures.spec-helper';
import { ToolVisibility } from '../listing/tool-visibility';
import { AccessExplainer } from './access-explainer.service';
import type { Principal } from './principal';

const who = (userId: string, roles: string[], claims: Record<string, string> = {}): Principal => ({
  tenantId: 'acme',
  userId,
  roles,
  claims,
});
const admin = who('root', ['admin']);
const bob = who('bob', ['analyst']);
const eve = who('eve', ['analyst']);

/** The catalog service's one read the explainer uses, over a fixed catalog; records tenants asked. */
function explainer(catalog: TenantCatalog = salesCatalog()) {
  const asked: string[] = [];
  const visibility = new ToolVisibility(new BuiltinTools());
  const catalogs = {
    tenantTools: (tenantId: string) => {
      asked.push(tenantId);
      return Promise.resolve({ catalog, tools: visibility.index(catalog).all });
    },
  } as unknown as CatalogService;
  return { explain: new AccessExplainer(catalogs), asked };
}

describe('AccessExplainer', () => {
  beforeAll(() => initSqlParser(), 30_000);

  it("reads only the viewer's own tenant", async () => {
    const { explain, asked } = explainer();
    await explain.explain(bob, bob, reportToolName('revenue'));
    expect(asked).toEqual([bob.tenantId]);
  });

  it('shows a caller every check of a tool it can see', async () => {
    const { explain } = explainer();
    const answer = await explain.explain(bob, bob, reportToolName('revenue'));
    expect(answer.visible).toBe(true);
    expect(answer.effective_roles).toEqual(['analyst']);
    expect(answer.checks.map((c) => [c.check, c.ok])).toEqual([
      ['exists', true],
      ['served', true],
      ['grant', true],
      ['claims', true],
    ]);
  });

  it('answers a forbidden tool to a non-admin exactly like a missing one', async () => {
    const { explain } = explainer();
    const forbidden = await explain.explain(eve, eve, reportToolName('revenue'));
    const outside = await explain.explain(bob, bob, reportToolName('payroll'));
    const missing = await explain.explain(bob, bob, reportToolName('nothing'));
    for (const answer of [forbidden, outside, missing]) {
      expect(answer.visible).toBe(false);
      expect(answer.checks).toHaveLength(1);
      expect(answer.checks[0]).toMatchObject({ check: 'exists', ok: false });
      expect(answer.checks[0]!.detail).toBe(
        `no tool named "${answer.tool}" is available to you; an admin of your tenant can explain why`,
      );
    }
  });

  it('refuses a non-admin asking about another user with FORBIDDEN', async () => {
    const { explain } = explainer();
    await expect(explain.explain(bob, eve, reportToolName('revenue'))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const elsewhere = { ...bob, tenantId: 'globex' };
    await expect(explain.explain(bob, elsewhere, reportToolName('revenue'))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('tells an admin which check fails for another user', async () => {
    const { explain } = explainer();
    const answer = await explain.explain(admin, eve, reportToolName('revenue'));
    expect(answer.user).toBe('eve');
    expect(answer.visible).toBe(false);
    const grant = answer.checks.find((c) => c.check === 'grant');
    expect(grant?.ok).toBe(false);
  });

  it('checks the business context when one is asked for', async () => {
    const { explain } = explainer();
    const inside = await explain.explain(bob, bob, reportToolName('margin'), 'margins');
    expect(inside.checks.find((c) => c.check === 'context')).toMatchObject({ ok: true });
    const outside = await explain.explain(admin, bob, reportToolName('revenue'), 'margins');
    expect(outside.visible).toBe(false);
    expect(outside.checks.find((c) => c.check === 'context')).toMatchObject({ ok: false });
  });

  it('tells an admin a report exists but is not served, and why', async () => {
    const reports = ReportSet.of([storedReport('old', 'sales', 1, 'disabled')], 'scope', (r) =>
      admitReport(r, TENANT, () => []),
    );
    const access = new AccessPolicy(accessRecords({ roles: [{ name: 'admin', isAdmin: true }] }));
    const { explain } = explainer(new TenantCatalog(TENANT, reports, access));
    const answer = await explain.explain(admin, admin, reportToolName('old'));
    expect(answer.visible).toBe(false);
    expect(answer.checks).toEqual([
      { check: 'exists', ok: true, detail: 'report old exists' },
      { check: 'served', ok: false, detail: 'not served: disabled' },
    ]);
  });

  it('names the claims a caller lacks for a report that binds them', async () => {
    const report = storedReport(
      'mine',
      'sales',
      1,
      'active',
      'SELECT count(*) AS n FROM orders WHERE region = :claim_region',
    );
    const catalog = tenantCatalog(
      [report],
      accessRecords({
        roles: [
          { name: 'admin', isAdmin: true },
          { name: 'analyst', isAdmin: false },
        ],
        roleGrants: [{ role: 'analyst', category: 'sales', reportId: null }],
      }),
    );
    const { explain } = explainer(catalog);
    const without = await explain.explain(admin, bob, reportToolName('mine'));
    expect(without.checks.find((c) => c.check === 'claims')).toEqual({
      check: 'claims',
      ok: false,
      detail: 'the token lacks claim region',
    });
    const withClaim = await explain.explain(
      admin,
      { ...bob, claims: { region: 'eu' } },
      reportToolName('mine'),
    );
    expect(withClaim.visible).toBe(true);
  });
});
