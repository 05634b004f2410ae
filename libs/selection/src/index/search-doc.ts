import type { ReportMetadata, ToolDefinition } from '@app/templates';

/** What the search index knows of one tool; built from the tool's metadata. */
export interface SearchDoc {
  /** the tool name, e.g. query_report_sales_by_region */
  name: string;
  /** the report's display name, or the tool name */
  title: string;
  description: string;
  category: string;
  /** business contexts the tool belongs to */
  contexts: string[];
  /** filter names and descriptions */
  filters: string;
  /** the filters' enum values: a value the user names ("travel", "chat") is a strong hint */
  values: string;
  /** output field names and descriptions */
  fields: string;
  /** author-supplied words for the report (optional metadata) */
  synonyms: string[];
  /** author-supplied questions the report answers (optional metadata) */
  examples: string[];
  /** changes whenever anything above does: the index re-reads a doc only then */
  signature: string;
}

/** The first sentence of a description, for search results that must stay short. */
export function oneLine(description: string, max = 160): string {
  const end = description.search(/[.!?](\s|$)/);
  const line = end > 0 ? description.slice(0, end + 1) : description;
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The search doc of a report, from its metadata and the contexts it belongs to. */
export function reportSearchDoc(
  toolName: string,
  report: ReportMetadata,
  contexts: readonly string[],
): SearchDoc {
  const filters = report.filters.map((f) => `${f.name} ${f.description}`).join(' ');
  const values = report.filters.flatMap((f) => f.enumValues ?? []).join(' ');
  const fields = report.fields.map((f) => `${f.name} ${f.description}`).join(' ');
  const sorted = [...contexts].sort();
  return {
    name: toolName,
    title: report.name,
    description: report.description,
    category: report.category,
    contexts: sorted,
    filters,
    values,
    fields,
    synonyms: report.synonyms ?? [],
    examples: report.exampleQuestions ?? [],
    // a report's version changes with every metadata edit; contexts come from grants
    signature: `r${report.version}:${sorted.join(',')}`,
  };
}

/** The search doc of a tool that is not a report (built-in or generated). */
export function toolSearchDoc(
  definition: ToolDefinition,
  category: string,
  contexts: readonly string[],
): SearchDoc {
  const sorted = [...contexts].sort();
  return {
    name: definition.name,
    title: definition.name,
    description: definition.description,
    category,
    contexts: sorted,
    filters: Object.keys(
      (definition.inputSchema as { properties?: Record<string, unknown> }).properties ?? {},
    ).join(' '),
    values: '',
    fields: '',
    synonyms: [],
    examples: [],
    signature: `t:${definition.description}:${sorted.join(',')}`,
  };
}
