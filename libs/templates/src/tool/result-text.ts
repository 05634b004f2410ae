import { MAX_PAGE_SIZE } from '../model/report';

/** A page of a report result as the executor returns it. */
export interface ResultPage {
  columns: Array<{ name: string; type: string }>;
  rows: Record<string, unknown>[];
  page: number;
  page_size: number;
  has_more: boolean;
}

/** The page with each row as an array in column order (REST `encoding=compact`). */
export interface CompactPage {
  encoding: 'compact';
  columns: Array<{ name: string; type: string }>;
  rows: unknown[][];
  page: number;
  page_size: number;
  has_more: boolean;
}

export function compactPage(page: ResultPage): CompactPage {
  return { encoding: 'compact', ...page, rows: rowArrays(page) };
}

function rowArrays(page: ResultPage): unknown[][] {
  const names = page.columns.map((c) => c.name);
  return page.rows.map((row) => names.map((name) => row[name] ?? null));
}

/**
 * What a model reads of a page (MCP text content, tool-call helper messages): the column
 * names once, then one JSON array per row, so the whole page fits where objects would not.
 * Past `maxBytes` the text ends on a row boundary and says which rows it holds and the
 * `page`/`page_size` that fetch the rest with no gap (the next call starts at the first row
 * left out). Clients that forward only text to the model then lose no row.
 */
export function resultText(page: ResultPage, maxBytes: number): string {
  const lines = rowArrays(page).map((row) => JSON.stringify(row));
  const first = (page.page - 1) * page.page_size + 1;
  const header = `columns: ${JSON.stringify(page.columns.map((c) => c.name))}`;
  const whole = summary(page, first, lines.length);
  if (fits([whole, header, ...lines], maxBytes)) return [whole, header, ...lines].join('\n');
  // Longest prefix of rows whose text fits (the cut summary is at most this long).
  const budget = maxBytes - Buffer.byteLength(header) - 400;
  let used = 0;
  let count = 0;
  while (count < lines.length && used + Buffer.byteLength(lines[count]) + 1 <= budget) {
    used += Buffer.byteLength(lines[count]) + 1;
    count += 1;
  }
  return [cutSummary(page, first, count, lines.length), header, ...lines.slice(0, count)].join(
    '\n',
  );
}

function fits(parts: string[], maxBytes: number): boolean {
  let total = parts.length - 1;
  for (const part of parts) total += Buffer.byteLength(part);
  return total <= maxBytes;
}

function summary(page: ResultPage, first: number, count: number): string {
  if (count === 0) return `0 rows on page ${page.page}; no more pages.`;
  const span = `${count} row(s), result rows ${first}-${first + count - 1} (page ${page.page}, page_size ${page.page_size})`;
  if (!page.has_more) return `${span}; no more pages.`;
  return `${span}; more rows: call again with the same arguments and ${JSON.stringify({ page: page.page + 1, page_size: page.page_size })}.`;
}

function cutSummary(page: ResultPage, first: number, count: number, total: number): string {
  const offset = first - 1 + count;
  const next = gaplessPage(offset, Math.max(count, 1));
  const held =
    count === 0
      ? 'none of its rows fit'
      : `the text holds result rows ${first}-${first + count - 1}`;
  return `${total} row(s) on page ${page.page} (page_size ${page.page_size}), cut to fit the text limit: ${held}. The structured result has every row of the page; to read the rest as text from result row ${offset + 1}, call again with the same arguments and ${JSON.stringify(next)}.`;
}

/**
 * `page`/`page_size` whose page starts exactly at row `offset` (0-based): the largest page
 * size at most `preferred` (and the page-size cap) that divides the offset. 1 always does.
 */
export function gaplessPage(
  offset: number,
  preferred: number,
): { page: number; page_size: number } {
  if (offset === 0) return { page: 1, page_size: Math.min(preferred, MAX_PAGE_SIZE) };
  for (let size = Math.min(preferred, MAX_PAGE_SIZE); size >= 1; size -= 1) {
    if (offset % size === 0) return { page: offset / size + 1, page_size: size };
  }
  return { page: offset + 1, page_size: 1 };
}
