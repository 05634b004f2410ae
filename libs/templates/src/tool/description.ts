import type { ReportFilter, ReportMetadata } from '../model/report';
import { MAX_DESCRIPTION_LENGTH } from '../model/report';

function filterSummary(filter: ReportFilter): string {
  const kind =
    filter.type === 'enum' && filter.enumValues
      ? `one of ${filter.enumValues.join('/')}`
      : filter.type.replace('_', ' ');
  const need = filter.required ? 'required' : 'optional';
  return `${filter.name} (${kind}, ${need})`;
}

/**
 * What the model reads to pick a tool: the business description first (it matters most),
 * then filters and returned fields, cut to the providers' limit on a word boundary.
 */
export function toolDescription(report: ReportMetadata): string {
  const parts = [report.description.trim()];
  if (report.filters.length > 0) {
    parts.push(`Filters: ${report.filters.map(filterSummary).join(', ')}.`);
  }
  if (report.fields.length > 0) {
    parts.push(`Returns: ${report.fields.map((f) => `${f.name} (${f.type})`).join(', ')}.`);
  }
  return truncate(parts.join(' '), MAX_DESCRIPTION_LENGTH);
}

export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut}…`;
}
