import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkMysqlTemplate } from './mysql-guard';
import { MUST_ACCEPT, MUST_REJECT, MYSQL_CORPUS_SCOPE } from './mysql-guard-corpus';

describe('the MySQL-dialect guard: its corpus (issue #42)', () => {
  it('holds at least 40 refusals and 15 everyday templates', () => {
    expect(MUST_REJECT.length).toBeGreaterThanOrEqual(40);
    expect(MUST_ACCEPT.length).toBeGreaterThanOrEqual(15);
  });

  it.each(MUST_REJECT.map((r) => [r.sql, r]))('refuses %s', (_sql, refusal) => {
    const verdict = checkMysqlTemplate(refusal.sql, MYSQL_CORPUS_SCOPE);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.problems.join('; ')).toMatch(new RegExp(refusal.reason, 'i'));
  });

  it.each(MUST_ACCEPT)('accepts %s', (sql) => {
    const verdict = checkMysqlTemplate(sql, MYSQL_CORPUS_SCOPE);
    expect(verdict).toEqual(expect.objectContaining({ ok: true }));
  });
});

describe('the MySQL-dialect guard: what it hands the driver', () => {
  it('binds :name parameters as ? placeholders, in order, names repeated', () => {
    expect(
      checkMysqlTemplate(
        "SELECT id FROM orders WHERE (:region IS NULL OR region = :region) AND note <> ':x' AND total > :min",
        MYSQL_CORPUS_SCOPE,
      ),
    ).toEqual({
      ok: true,
      text: "SELECT id FROM orders WHERE (? IS NULL OR region = ?) AND note <> ':x' AND total > ?",
      params: ['region', 'region', 'min'],
    });
  });

  it('keeps strings as written, comments out, and a trailing semicolon off', () => {
    const verdict = checkMysqlTemplate(
      "SELECT id FROM orders -- why\nWHERE note = 'a#b' # and more\n;",
      MYSQL_CORPUS_SCOPE,
    );
    expect(verdict).toEqual({
      ok: true,
      text: "SELECT id FROM orders  \nWHERE note = 'a#b'",
      params: [],
    });
  });
});

describe('the MySQL-dialect guard: docs/sql-guard.md shows the whole corpus', () => {
  const doc = readFileSync(path.resolve(__dirname, '../../../../../docs/sql-guard.md'), 'utf8');
  it.each([...MUST_REJECT.map((r) => r.sql), ...MUST_ACCEPT])('lists %s', (sql) => {
    expect(doc).toContain(sql.replace(/\n/g, ' ').replace(/\|/g, '\\|'));
  });
});
