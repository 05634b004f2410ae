import { getOrCreate, GrantMembers } from './grant-members';

const revenue = { id: 'revenue', category: 'sales' };
const payroll = { id: 'payroll', category: 'finance' };

describe('GrantMembers', () => {
  it('covers a subject by its category or by its own id, and says which', () => {
    const byCategory = new GrantMembers();
    byCategory.add('sales', null);
    expect(byCategory.covers(revenue)).toBe(true);
    expect(byCategory.describe(revenue)).toBe('category sales');
    const byTool = new GrantMembers();
    byTool.add(null, 'revenue');
    expect(byTool.covers(revenue)).toBe(true);
    expect(byTool.describe(revenue)).toBe('revenue');
  });

  it('covers nothing it does not name, and names nothing from an empty row', () => {
    const members = new GrantMembers();
    members.add(null, null);
    expect(members.covers(revenue)).toBe(false);
    members.add('sales', 'stock_levels');
    expect(members.covers(payroll)).toBe(false);
    expect(members.covers({ id: 'stock_levels', category: 'inventory' })).toBe(true);
  });

  it('keeps the description of a business context', () => {
    expect(new GrantMembers('sales work').description).toBe('sales work');
    expect(new GrantMembers().description).toBe('');
  });
});

describe('getOrCreate', () => {
  it('creates a value once per key and hands back the same one after', () => {
    const map = new Map<string, GrantMembers>();
    let created = 0;
    const make = () => {
      created += 1;
      return new GrantMembers();
    };
    const first = getOrCreate(map, 'analyst', make);
    expect(getOrCreate(map, 'analyst', make)).toBe(first);
    expect(getOrCreate(map, 'admin', make)).not.toBe(first);
    expect(created).toBe(2);
  });
});
