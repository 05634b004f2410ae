/**
 * A generated tool's error as reviewers read it (`last_error` of GET
 * /v1/admin/generated-tools) and as the log keeps it: the code and stage, and the message with
 * every value of the caller's replaced. A tool's message is the tool's own text, and a tool
 * that fails on a row it read tends to put the row in it (`'unexpected row ' +
 * JSON.stringify(row)`), as do Postgres errors about a value; reviewers may not read those
 * rows. The caller still gets the whole message: the rows are theirs.
 *
 * Redacted when the error is recorded, so no row is ever stored or logged: every value the run
 * was given (the caller's arguments, identity and claims) or read (each data call's result) is
 * replaced where it appears, as is and as it appears inside JSON text.
 */

export const REDACTED = '‹value›';
/** values checked in one message at most; past it the message is withheld, not half-checked */
const MAX_VALUES = 20_000;
/** values shorter than this are replaced only where they stand alone (a word, a number) */
const SHORT = 4;

/** What one run saw of its caller's data: arguments, identity, and data-call results (JSON). */
export class RunValues {
  private readonly given: unknown[] = [];
  private readonly readJson: string[] = [];

  /** something the run was given: the caller's arguments, identity, claims */
  gave(value: unknown): void {
    this.given.push(value);
  }

  /** a data call's result, as the JSON text the run was given */
  read(json: string): void {
    this.readJson.push(json);
  }

  /** Every scalar value, as text, longest first; undefined when there are too many to check. */
  texts(): string[] | undefined {
    const found = new Set<string>();
    const stack: unknown[] = [...this.given];
    for (const json of this.readJson) {
      try {
        stack.push(rowsOf(JSON.parse(json)));
      } catch {
        return undefined;
      }
    }
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v === 'string') {
        if (v.trim() !== '') found.add(v);
      } else if (typeof v === 'number' || typeof v === 'bigint') found.add(String(v));
      else if (v && typeof v === 'object') stack.push(...Object.values(v));
      if (found.size > MAX_VALUES) return undefined;
    }
    return [...found].sort((a, b) => b.length - a.length);
  }
}

/**
 * The rows of a report page (`ctx.report`: its column names, page and page size are the
 * report's, not the caller's data, and stay readable); anything else whole (`ctx.query`).
 */
function rowsOf(result: unknown): unknown {
  const page = result as { rows?: unknown; columns?: unknown } | null;
  return page && Array.isArray(page.rows) && Array.isArray(page.columns) ? page.rows : result;
}

/** `text` with every value in `values` replaced by REDACTED. */
export function redactValues(text: string, values: RunValues): string {
  const texts = values.texts();
  if (!texts) return '(message withheld: the run read more values than can be checked in it)';
  let out = text;
  for (const value of texts) {
    // as is, and as JSON.stringify writes it inside a string (quotes, backslashes, newlines)
    for (const form of new Set([value, JSON.stringify(value).slice(1, -1)])) {
      // never inside a replacement already made
      out = out
        .split(REDACTED)
        .map((part) =>
          form.length >= SHORT
            ? part.split(form).join(REDACTED)
            : part.replace(standingAlone(form), REDACTED),
        )
        .join(REDACTED);
    }
  }
  return out;
}

/** A short value where it is a token of its own (not part of a longer word or number). */
function standingAlone(form: string): RegExp {
  const escaped = form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}_.])${escaped}(?![\\p{L}\\p{N}_])`, 'gu');
}
