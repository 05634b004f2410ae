import { TemplateError } from '../errors';
import { ReportTool } from '../tool/report-tool';
import { initSqlParser, parseSql, scanSql } from './sql-lexer';

// loading the parser (WebAssembly) can take seconds on a loaded machine
beforeAll(() => initSqlParser(), 30_000);

/** libpg-query's own errors (a bare SyntaxError) never cross into our code. */
describe('the lexer and parser wrappers', () => {
  it.each([
    ["SELECT 'abc FROM orders", /unterminated quoted string/],
    ['SELECT $x$abc FROM orders', /unterminated dollar-quoted string/],
    ['SELECT 1 /* FROM orders', /unterminated \/\* comment/],
  ])('turn a scanner failure on %p into a TemplateError with the parser reason', (text, reason) => {
    for (const read of [scanSql, parseSql]) {
      let thrown: unknown;
      try {
        read(text);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(TemplateError);
      expect((thrown as TemplateError).code).toBe('INVALID_TEMPLATE');
      expect((thrown as TemplateError).problems).toEqual([
        { rule: 'parse', message: expect.stringMatching(reason) },
      ]);
    }
  });

  it('make a report whose template does not scan a TemplateError, not a SyntaxError', () => {
    expect(
      () =>
        new ReportTool({
          tenantId: 'acme',
          id: 'broken',
          name: 'Broken',
          description: 'broken',
          sqlTemplate: "SELECT 'abc FROM orders",
          category: 'sales',
          version: 1,
          filters: [],
          fields: [],
        }),
    ).toThrow(TemplateError);
  });
});
