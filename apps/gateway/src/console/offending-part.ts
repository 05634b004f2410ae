/** Where in the SQL a guard problem points, for the console to highlight. */
export interface OffendingPart {
  text: string;
  /** offsets into the SQL, in UTF-16 code units (what a browser's string indexes use) */
  start: number;
  end: number;
}

const NAMED =
  /\b(?:found|function|operator|type|table|relation|column|schema)\s+([A-Za-z_][\w.$]*)/gi;
const QUOTED = /"([^"]+)"|'([^']+)'/g;
const PARAM = /:([a-z_][a-z0-9_]*)/gi;
const DOTTED_OR_SNAKE = /\b([A-Za-z_]\w*(?:\.\w+)+|[a-z]+_[a-z0-9_]+)\b/g;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function locate(sql: string, text: string, isParam: boolean): OffendingPart | undefined {
  const pattern = isParam
    ? new RegExp(`${escape(text)}(?![A-Za-z0-9_])`, 'i')
    : new RegExp(`(?<![A-Za-z0-9_])${escape(text)}(?![A-Za-z0-9_])`, 'i');
  const match = pattern.exec(sql);
  return match
    ? { text: match[0], start: match.index, end: match.index + match[0].length }
    : undefined;
}

/**
 * The first thing a guard message names (a quoted value, a :parameter, the word after
 * "found", "function", "table"..., a dotted or snake_case name) that occurs in the SQL.
 * Undefined when the message names nothing in the text (e.g. "no SQL statement found").
 */
export function offendingPart(sql: string, message: string): OffendingPart | undefined {
  const candidates: Array<{ text: string; param: boolean }> = [];
  for (const m of message.matchAll(QUOTED)) candidates.push({ text: m[1] ?? m[2], param: false });
  for (const m of message.matchAll(PARAM)) candidates.push({ text: m[0], param: true });
  for (const m of message.matchAll(NAMED)) candidates.push({ text: m[1], param: false });
  for (const m of message.matchAll(DOTTED_OR_SNAKE)) candidates.push({ text: m[1], param: false });
  for (const candidate of candidates) {
    const found = locate(sql, candidate.text, candidate.param);
    if (found) return found;
    // "pg_catalog.pg_roles" in a message, "pg_roles" in the SQL
    const last = candidate.text.split('.').pop();
    if (last && last !== candidate.text) {
      const tail = locate(sql, last, false);
      if (tail) return tail;
    }
  }
  return undefined;
}
