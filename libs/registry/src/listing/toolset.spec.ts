import { initSqlParser, reportToolName } from '@app/templates';
import type { Principal } from '../access/principal';
import { accessRecords, storedReport, tenantCatalog } from '../catalog/fixtures.spec-helper';
import { builtinTool as builtin, salesCatalog } from './fixtures.spec-helper';
import { BuiltinTools } from './builtin-tools';
import type { ServedTool } from './served-tool';
import { ToolVisibility } from './tool-visibility';
import { permits, toolsetKey } from './toolset';

const who = (userId: string, roles: string[], claims: Record<string, string> = {}): Principal => ({
  tenantId: 'acme',
  userId,
  roles,
  claims,
});

function toolOf(catalog: ReturnType<typeof salesCatalog>, name: string): ServedTool {
  const tool = new ToolVisibility(new BuiltinTools()).index(catalog).get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

describe('toolsetKey', () => {
  beforeAll(() => initSqlParser(), 30_000);

  it('names the tenant, catalog version, permission set and context', () => {
    const catalog = salesCatalog();
    const bob = who('bob', ['analyst']);
    const { key, roles } = toolsetKey(catalog, bob, 'margins');
    expect(roles).toEqual(catalog.access.effectiveRoles(bob));
    expect(key.startsWith(`${bob.tenantId}:${catalog.version}:`)).toBe(true);
    expect(key.endsWith(':margins')).toBe(true);
    expect(toolsetKey(catalog, bob, undefined).key.endsWith(':*')).toBe(true);
  });

  it('gives callers of the same permissions one key, and callers of other permissions another', () => {
    const catalog = salesCatalog();
    const bob = toolsetKey(catalog, who('bob', ['analyst']), undefined).key;
    expect(toolsetKey(catalog, who('ann', ['analyst']), undefined).key).toBe(bob);
    expect(toolsetKey(catalog, who('root', ['admin']), undefined).key).not.toBe(bob);
    // eve has rules of her own: her list is hers alone
    expect(toolsetKey(catalog, who('eve', ['analyst']), undefined).key).not.toBe(bob);
    expect(toolsetKey(catalog, who('bob', ['analyst'], { region: 'eu' }), undefined).key).not.toBe(
      bob,
    );
    expect(
      toolsetKey(catalog, { ...who('bob', ['analyst']), tenantId: 'globex' }, undefined).key,
    ).not.toBe(bob);
  });

  it('refuses an unknown context with UNKNOWN_CONTEXT, listing the valid ones', () => {
    const catalog = salesCatalog();
    expect(() => toolsetKey(catalog, who('bob', ['analyst']), 'nope')).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_CONTEXT',
        details: { valid_contexts: catalog.access.contextNames() },
      }),
    );
  });
});

describe('permits', () => {
  beforeAll(() => initSqlParser(), 30_000);

  it('permits a granted report and refuses an ungranted or denied one', () => {
    const catalog = salesCatalog();
    const bob = who('bob', ['analyst']);
    const eve = who('eve', ['analyst']);
    const roles = (p: Principal) => catalog.access.effectiveRoles(p);
    const revenue = toolOf(catalog, reportToolName('revenue'));
    expect(permits(catalog, bob, roles(bob), revenue, undefined)).toBe(true);
    expect(
      permits(catalog, bob, roles(bob), toolOf(catalog, reportToolName('payroll')), undefined),
    ).toBe(false);
    expect(permits(catalog, eve, roles(eve), revenue, undefined)).toBe(false);
  });

  it('refuses a report outside the context asked for, but lists a built-in in any context', () => {
    const catalog = salesCatalog();
    const root = who('root', ['admin']);
    const roles = catalog.access.effectiveRoles(root);
    expect(
      permits(catalog, root, roles, toolOf(catalog, reportToolName('revenue')), 'margins'),
    ).toBe(false);
    expect(
      permits(catalog, root, roles, toolOf(catalog, reportToolName('margin')), 'margins'),
    ).toBe(true);
    const meta: ServedTool = {
      kind: 'builtin',
      definition: builtin().definition,
      builtin: builtin(),
    };
    expect(permits(catalog, root, roles, meta, 'margins')).toBe(true);
  });

  it('refuses a report whose bound claims the token lacks', () => {
    const report = storedReport(
      'mine',
      'sales',
      1,
      'active',
      'SELECT count(*) AS n FROM orders WHERE r = :claim_region',
    );
    const catalog = tenantCatalog(
      [report],
      accessRecords({
        roles: [{ name: 'analyst', isAdmin: false }],
        roleGrants: [{ role: 'analyst', category: 'sales', reportId: null }],
      }),
    );
    const tool = toolOf(catalog, reportToolName('mine'));
    const bob = who('bob', ['analyst']);
    const roles = catalog.access.effectiveRoles(bob);
    expect(permits(catalog, bob, roles, tool, undefined)).toBe(false);
    expect(permits(catalog, { ...bob, claims: { region: 'eu' } }, roles, tool, undefined)).toBe(
      true,
    );
  });
});
