/** What a refusal is about. One rule per kind of fix the author has to make. */
export type SqlGuardRule =
  | 'parse' // Postgres cannot parse it (or scan it)
  | 'single_statement' // zero or several statements
  | 'select_only' // not a pure read: DML/DDL/utility, data-modifying WITH, SELECT INTO, FOR UPDATE
  | 'construct' // syntax the guard does not allow (TABLESAMPLE, XML, anything unknown)
  | 'relation' // a table outside the whitelist or in a system schema
  | 'function' // a function or operator outside the read-only allow-list
  | 'cast' // a cast to a type outside the allow-list (reg* types, user-defined types)
  | 'amplifier' // repeat/lpad/rpad/generate_series/array_fill without a small literal size
  | 'parameters' // undeclared, unused or hand-written positional parameters
  | 'differential'; // Postgres's scanner and parser disagree about the text

export interface SqlGuardViolation {
  rule: SqlGuardRule;
  message: string;
}

/** Collects violations once each, in the order found. */
export class ViolationSink {
  private readonly seen = new Map<string, SqlGuardViolation>();

  add(rule: SqlGuardRule, message: string): void {
    const key = `${rule}\u0000${message}`;
    if (!this.seen.has(key)) this.seen.set(key, { rule, message });
  }

  get violations(): SqlGuardViolation[] {
    return [...this.seen.values()];
  }
}
