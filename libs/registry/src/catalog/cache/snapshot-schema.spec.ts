import { validSnapshot } from './snapshot-schema';
import { snapshotOf } from '../snapshot.spec-helper';

/** A JSON tree a test edits freely (breaking it on purpose). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Tree = Record<string, any>;

/** A deep copy of a sound snapshot, changed by `edit` (which may break it). */
function edited(edit: (s: Tree) => void): unknown {
  const copy = JSON.parse(JSON.stringify(snapshotOf())) as Tree;
  edit(copy);
  return copy;
}

describe('validSnapshot', () => {
  it('accepts a snapshot as the loader stores it, after a JSON round trip', () => {
    expect(validSnapshot(JSON.parse(JSON.stringify(snapshotOf())))).toBe(true);
  });

  it('accepts the nullable fields as null and a filter default of any JSON value', () => {
    const value = edited((s) => {
      s.tenant.dataSchema = null;
      s.reports[0].metadata.filters = [
        {
          name: 'region',
          type: 'enum',
          description: 'r',
          required: false,
          enumValues: ['eu', null],
          defaultValue: { any: ['json'] },
        },
      ];
    });
    expect(validSnapshot(value)).toBe(true);
  });

  it("accepts a report's synonyms, example questions and own limits, as the loader stores them", () => {
    const value = edited((s) => {
      s.reports[0].metadata.synonyms = ['turnover', 'sales'];
      s.reports[0].metadata.exampleQuestions = ['What was revenue in Q1?'];
      s.reports[0].metadata.limits = {
        statementTimeoutMs: 5000,
        maxRows: null,
        maxResultBytes: 1024,
      };
    });
    expect(validSnapshot(value)).toBe(true);
  });

  it('accepts a report that declares it runs as a task', () => {
    expect(validSnapshot(edited((s) => (s.reports[0].metadata.runAsTask = true)))).toBe(true);
  });

  it.each([
    ['not an object', () => 'catalog'],
    ['null', () => null],
    ['a missing part', () => edited((s) => delete s.access)],
    ['an unknown top-level key', () => edited((s) => (s.extra = 1))],
    ['an unknown tenant key', () => edited((s) => (s.tenant.admin = true))],
    ['a fractional catalog version', () => edited((s) => (s.tenant.catalogVersion = 1.5))],
    ['a version as a string', () => edited((s) => (s.tenant.catalogVersion = '7'))],
    ['allowed tables that are not strings', () => edited((s) => (s.tenant.allowedTables = [1]))],
    ['a report status outside the enum', () => edited((s) => (s.reports[0].status = 'pending'))],
    [
      'a report without its template',
      () => edited((s) => delete s.reports[0].metadata.sqlTemplate),
    ],
    [
      'a run-as-task declaration that is not a boolean',
      () => edited((s) => (s.reports[0].metadata.runAsTask = 'yes')),
    ],
    ['a report metadata key unknown', () => edited((s) => (s.reports[0].metadata.owner = 'x'))],
    ['synonyms that are not strings', () => edited((s) => (s.reports[0].metadata.synonyms = [1]))],
    [
      'limits with an unknown key',
      () =>
        edited(
          (s) =>
            (s.reports[0].metadata.limits = {
              statementTimeoutMs: null,
              maxRows: null,
              maxResultBytes: null,
              admin: true,
            }),
        ),
    ],
    [
      'a filter without required',
      () =>
        edited(
          (s) =>
            (s.reports[0].metadata.filters = [
              { name: 'f', type: 'text', description: '', enumValues: null },
            ]),
        ),
    ],
    [
      'a field with an extra key',
      () => edited((s) => (s.reports[0].metadata.fields[0].sql = 'DROP TABLE x')),
    ],
    [
      'a grant effect outside the enum',
      () => edited((s) => (s.access.userGrants[0].effect = 'maybe')),
    ],
    ['a role whose isAdmin is a string', () => edited((s) => (s.access.roles[0].isAdmin = 'true'))],
    ['a generated tool without its sha256', () => edited((s) => delete s.generated[0].sha256)],
    ['reports that are not an array', () => edited((s) => (s.reports = {}))],
  ])('refuses %s', (_what, value) => {
    expect(validSnapshot(value())).toBe(false);
  });
});
