import { reportScope, templateProblems } from '@app/registry';
import type { TenantCatalog } from '@app/registry';
import { parseReportDocument, ReportTool, TemplateError } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';
import type { ValidationProblem } from './console-types';
import { offendingPart } from './offending-part';

export type Judgement =
  { ok: true; tool: ReportTool } | { ok: false; problems: ValidationProblem[] };

/** The contexts of the catalog a report (by id and category) belongs to. */
export function contextsOf(catalog: TenantCatalog, id: string, category: string): string[] {
  return catalog.access.contextNames().filter((c) => catalog.access.inContext(c, { id, category }));
}

/** The PUT's judgement of a report document, its problems pointing into sql_template. */
export function judgeReport(catalog: TenantCatalog, id: string, document: unknown): Judgement {
  const sql =
    document &&
    typeof document === 'object' &&
    typeof (document as { sql_template?: unknown }).sql_template === 'string'
      ? (document as { sql_template: string }).sql_template
      : '';
  const withParts = (problems: TemplateProblem[]): ValidationProblem[] =>
    problems.map((p) => {
      const part = offendingPart(sql, p.message);
      return part ? { ...p, part } : { ...p };
    });
  const parsed = parseReportDocument(catalog.tenant.id, id, document);
  if (!parsed.ok) return { ok: false, problems: withParts(parsed.problems) };
  let tool: ReportTool;
  try {
    tool = new ReportTool(parsed.metadata);
  } catch (err) {
    if (err instanceof TemplateError) return { ok: false, problems: withParts(err.problems) };
    throw err;
  }
  const problems = templateProblems(
    parsed.metadata as ReportMetadata,
    reportScope(catalog.tenant, parsed.metadata),
  );
  if (problems.length > 0) return { ok: false, problems: withParts(problems) };
  return { ok: true, tool };
}
