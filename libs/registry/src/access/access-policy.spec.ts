import { accessRecords } from '../catalog/fixtures.spec-helper';
import type { Principal } from './principal';
import { AccessPolicy } from './access-policy';

const who = (userId: string, roles: string[] = []): Principal => ({
  tenantId: 'acme',
  userId,
  roles,
  claims: {},
});

const policy = new AccessPolicy(
  accessRecords({
    roles: [
      { name: 'admin', isAdmin: true },
      { name: 'analyst', isAdmin: false },
      { name: 'tool_author', isAdmin: false },
    ],
    roleGrants: [
      { role: 'analyst', category: 'sales', reportId: null },
      { role: 'analyst', category: null, reportId: 'stock_levels' },
    ],
    userRoles: [{ userId: 'carol', role: 'analyst' }],
    userGrants: [
      { userId: 'dave', category: null, reportId: 'payroll', effect: 'allow' },
      { userId: 'erin', category: 'sales', reportId: null, effect: 'deny' },
    ],
    contexts: [
      { name: 'selling', description: 'sales work', category: 'sales', reportId: null },
      { name: 'stock', description: '', category: null, reportId: 'stock_levels' },
    ],
  }),
);

const sales = { id: 'revenue', category: 'sales' };
const stock = { id: 'stock_levels', category: 'inventory' };
const payroll = { id: 'payroll', category: 'finance' };

describe('AccessPolicy', () => {
  it('takes token roles plus stored roles, dropping roles the tenant does not know', () => {
    expect(policy.effectiveRoles(who('carol', ['ghost', 'tool_author']))).toEqual([
      'analyst',
      'tool_author',
    ]);
  });

  it('allows by a category grant or a single-report grant, and refuses the rest', () => {
    const roles = ['analyst'];
    expect(policy.decide(who('bob'), roles, sales)).toMatchObject({ allowed: true });
    expect(policy.decide(who('bob'), roles, stock).reason).toBe(
      'role analyst is granted stock_levels',
    );
    expect(policy.decide(who('bob'), roles, payroll)).toEqual({
      allowed: false,
      reason: 'none of the roles analyst is granted payroll or category finance',
    });
  });

  it('lets an admin see reports but not what is kept from admins', () => {
    expect(policy.decide(who('root'), ['admin'], payroll).allowed).toBe(true);
    expect(policy.decide(who('root'), ['admin'], { ...payroll, adminSees: false }).allowed).toBe(
      false,
    );
  });

  it('lets a per-user denial beat every grant, admin included', () => {
    expect(policy.decide(who('erin'), ['admin'], sales)).toEqual({
      allowed: false,
      reason: 'a per-user denial for erin covers category sales',
    });
  });

  it('allows by a per-user grant alone', () => {
    expect(policy.decide(who('dave'), [], payroll).allowed).toBe(true);
    expect(policy.hasUserRules('dave')).toBe(true);
    expect(policy.hasUserRules('bob')).toBe(false);
  });

  it('gives a tool that needs a role only to holders of that role, whatever the grants', () => {
    const meta = { id: 'meta_tool', category: 'sales', requiredRole: 'tool_author' };
    expect(policy.decide(who('bob'), ['analyst'], meta).allowed).toBe(false);
    expect(policy.decide(who('bob'), ['tool_author'], meta).allowed).toBe(true);
  });

  it('reaches the granted categories and names, or everything for an admin', () => {
    const reach = policy.reach(who('dave'), ['analyst']);
    expect(reach.everything).toBe(false);
    expect([...reach.categories]).toEqual(['sales']);
    expect([...reach.names].sort()).toEqual(['payroll', 'stock_levels']);
    expect(policy.reach(who('root'), ['admin']).everything).toBe(true);
  });

  it('knows its business contexts and what each holds', () => {
    expect(policy.contextList()).toEqual([
      { name: 'selling', description: 'sales work' },
      { name: 'stock', description: '' },
    ]);
    expect(policy.inContext('selling', sales)).toBe(true);
    expect(policy.inContext('stock', sales)).toBe(false);
    expect(policy.inContext('nowhere', sales)).toBe(false);
    expect(policy.hasContext('nowhere')).toBe(false);
  });
});
