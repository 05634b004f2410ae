import { factProblems } from './postgres-login-check';
import type { LoginFacts } from './source-server.repository';

const READ_ONLY: LoginFacts = {
  serverVersion: '15.4',
  powers: [],
  writable: [],
  owned: [],
  largeObjects: 0,
  createIn: [],
  schemaExists: true,
  missing: [],
  unreadable: [],
};

describe('factProblems: what makes a login not read-only', () => {
  const rules = (facts: Partial<LoginFacts>) =>
    factProblems({ ...READ_ONLY, ...facts }, 'sales', 'the server').map((p) => p.rule);

  it('accepts a login that can only read what is listed', () => {
    expect(rules({})).toEqual([]);
  });

  it('refuses each way of writing, and says where', () => {
    expect(rules({ powers: ['reader: superuser'] })).toEqual(['superuser']);
    expect(rules({ powers: ['admins: superuser', 'admins: CREATEROLE'] })).toEqual([
      'superuser',
      'writable',
    ]);
    for (const power of ['CREATEROLE', 'CREATEDB', 'REPLICATION', 'BYPASSRLS'])
      expect(rules({ powers: [`etl: ${power}`] })).toEqual(['writable']);
    expect(rules({ writable: ['public.audit'] })).toEqual(['writable']);
    expect(rules({ writable: ['sales.order_id_seq'] })).toEqual(['writable']);
    expect(rules({ owned: ['sales.orders'] })).toEqual(['owner']);
    expect(rules({ largeObjects: 2 })).toEqual(['writable']);
    expect(rules({ createIn: ['schema sales'] })).toEqual(['writable']);
    expect(rules({ createIn: ['database dw'] })).toEqual(['writable']);
    const [problem] = factProblems(
      { ...READ_ONLY, writable: ['public.audit'] },
      'sales',
      'replica 1',
    );
    expect(problem.message).toMatch(/^replica 1: .*public\.audit/);
  });

  it('names the role that holds a power, so the admin knows which membership to drop', () => {
    const [problem] = factProblems(
      { ...READ_ONLY, powers: ['etl_writer: pg_write_all_data is held'] },
      'sales',
      'the server',
    );
    expect(problem.message).toMatch(/etl_writer/);
    expect(problem.message).toMatch(/SET ROLE/);
  });

  it('refuses a missing schema or table and a table it may not read', () => {
    expect(rules({ schemaExists: false })).toEqual(['missing']);
    expect(rules({ missing: ['nope'] })).toEqual(['missing']);
    expect(rules({ unreadable: ['orders'] })).toEqual(['unreadable']);
  });
});
