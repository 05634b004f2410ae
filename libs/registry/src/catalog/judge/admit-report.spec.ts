import { initSqlParser, ReportTool, reportToolName, TemplateError } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';
import { storedReport, TENANT } from '../fixtures.spec-helper';
import { admitReport } from './admit-report';
import type { TemplateJudge } from './admit-report';

const clean: TemplateJudge = () => [];
const problem: TemplateProblem = { rule: 'table', message: 'table payroll is not allowed' };

// a report tool binds its template with the SQL parser (WebAssembly, slow on a loaded machine)
beforeAll(() => initSqlParser(), 30_000);

describe('admitReport', () => {
  it('serves an active, well-formed report the guard passes, with its tool', () => {
    const stored = storedReport('revenue', 'sales', 3);
    const seen: Array<[ReportMetadata, unknown]> = [];
    const verdict = admitReport(stored, TENANT, (report, scope) => {
      seen.push([report, scope]);
      return [];
    });
    expect(verdict).toMatchObject({ id: 'revenue', version: 3, status: { served: true } });
    expect(verdict.tool?.definition.name).toBe(reportToolName('revenue'));
    expect(seen).toEqual([[stored.metadata, TENANT]]);
  });

  it('does not serve a disabled report, and does not judge its template', () => {
    let judged = 0;
    const verdict = admitReport(storedReport('old', 'sales', 2, 'disabled'), TENANT, () => {
      judged++;
      return [];
    });
    expect(verdict).toEqual({
      id: 'old',
      version: 2,
      status: { served: false, reason: 'disabled' },
    });
    expect(judged).toBe(0);
  });

  it('does not serve a report whose template the guard rejects, and says why', () => {
    const verdict = admitReport(storedReport('pay', 'hr'), TENANT, () => [problem]);
    expect(verdict.tool).toBeUndefined();
    expect(verdict.status).toEqual({
      served: false,
      reason: 'the SQL template was rejected',
      problems: [problem],
    });
  });

  it('does not serve malformed metadata, naming the problems the report tool found', () => {
    const stored = storedReport('bad', 'sales');
    stored.metadata.fields = [];
    stored.metadata.name = '';
    let thrown: unknown;
    try {
      new ReportTool(stored.metadata);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TemplateError);
    const verdict = admitReport(stored, TENANT, clean);
    expect(verdict.status).toEqual({
      served: false,
      reason: 'invalid metadata',
      problems: (thrown as TemplateError).problems,
    });
  });

  it('turns any unexpected error into a verdict on that report alone, its text bounded', () => {
    const long = 'x'.repeat(1000);
    const verdict = admitReport(storedReport('odd', 'sales', 4), TENANT, () => {
      throw new RangeError(long);
    });
    expect(verdict).toMatchObject({
      id: 'odd',
      version: 4,
      status: { served: false, reason: 'invalid metadata' },
    });
    const [only] = (verdict.status as { problems: TemplateProblem[] }).problems;
    expect(only!.rule).toBe('unreadable');
    expect(only!.message).toContain('RangeError: xxx');
    expect(only!.message.length).toBeLessThan(long.length);
  });

  it('judges a row whose metadata is not even an object without throwing', () => {
    const broken = { status: 'active', updatedAt: '', metadata: { id: 'r', version: 1 } };
    const verdict = admitReport(broken as never, TENANT, clean);
    expect(verdict).toMatchObject({ id: 'r', version: 1, status: { served: false } });
  });
});
