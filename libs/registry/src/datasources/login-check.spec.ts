import { factProblems } from './login-check';
import type { LoginFacts } from './source-server.repository';

const READ_ONLY: LoginFacts = {
  serverVersion: '15.4',
  superuser: false,
  createRole: false,
  createDb: false,
  writable: [],
  owned: [],
  createInSchema: false,
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
    expect(rules({ superuser: true })).toContain('superuser');
    expect(rules({ createRole: true })).toEqual(['writable']);
    expect(rules({ createDb: true })).toEqual(['writable']);
    expect(rules({ writable: ['public.audit'] })).toEqual(['writable']);
    expect(rules({ owned: ['orders'] })).toEqual(['owner']);
    expect(rules({ createInSchema: true })).toEqual(['writable']);
    const [problem] = factProblems(
      { ...READ_ONLY, writable: ['public.audit'] },
      'sales',
      'replica 1',
    );
    expect(problem.message).toMatch(/^replica 1: .*public\.audit/);
  });

  it('refuses a missing schema or table and a table it may not read', () => {
    expect(rules({ schemaExists: false })).toEqual(['missing']);
    expect(rules({ missing: ['nope'] })).toEqual(['missing']);
    expect(rules({ unreadable: ['orders'] })).toEqual(['unreadable']);
  });
});
