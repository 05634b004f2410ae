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
  if (!parsed.ok)
    // the template's own refusal first: a half-filled form still learns what the guard says
    return {
      ok: false,
      problems: withParts([...guardOfDraft(catalog, document, sql), ...parsed.problems]),
    };
  const scope = reportScope(catalog.tenant, parsed.metadata);
  let tool: ReportTool;
  try {
    tool = new ReportTool(parsed.metadata, scope.dialect);
  } catch (err) {
    if (err instanceof TemplateError) return { ok: false, problems: withParts(err.problems) };
    throw err;
  }
  const problems = templateProblems(parsed.metadata as ReportMetadata, scope);
  if (problems.length > 0) return { ok: false, problems: withParts(problems) };
  return { ok: true, tool };
}

/**
 * The SQL guard's verdict on a draft whose document is not complete yet (an empty name, a
 * filter being typed): its template judged with the filters that are readable so far.
 */
function guardOfDraft(catalog: TenantCatalog, document: unknown, sql: string): TemplateProblem[] {
  if (sql.trim() === '') return [];
  const doc = document as { filters?: unknown; datasource?: unknown };
  const filters = (Array.isArray(doc.filters) ? doc.filters : []).filter(
    (f): f is { name: string; type: string } =>
      typeof f === 'object' &&
      f !== null &&
      typeof (f as { name?: unknown }).name === 'string' &&
      typeof (f as { type?: unknown }).type === 'string',
  );
  const draft = {
    sqlTemplate: sql,
    filters: filters.map((f) => ({ name: f.name, type: f.type })),
    datasource: typeof doc.datasource === 'string' ? doc.datasource : undefined,
  } as unknown as ReportMetadata;
  try {
    return templateProblems(draft, reportScope(catalog.tenant, draft));
  } catch {
    return [];
  }
}
