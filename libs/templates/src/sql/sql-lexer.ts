import { loadModule, parseSync, scanSync } from 'libpg-query';
import type { ParseResult } from 'libpg-query';
import { TemplateError } from '../errors';

/**
 * Postgres's own lexer and parser (libpg-query, compiled to WASM). Using them instead of a
 * hand-written tokenizer means strings, comments, dollar quotes and `::` casts are read
 * exactly as the server will read them.
 */
let ready: Promise<void> | undefined;
let loaded = false;

/** Loads the WASM parser once; every other function here needs it. Pure CPU, no I/O. */
export async function initSqlParser(): Promise<void> {
  ready ??= loadModule().then(() => {
    loaded = true;
  });
  return ready;
}

export class SqlParserNotLoadedError extends Error {
  constructor() {
    super('SQL parser not loaded: await initSqlParser() first');
  }
}

export interface SqlToken {
  /** character offsets into the original string (converted from the lexer's byte offsets) */
  start: number;
  end: number;
  text: string;
  kind: string;
}

function assertLoaded(): void {
  if (!loaded) throw new SqlParserNotLoadedError();
}

/**
 * Tokens as Postgres's scanner sees them, comments included. Input the scanner cannot read
 * (an unterminated quote, dollar quote or comment) is a TemplateError with Postgres's own
 * message: no error of the third-party library crosses into our code.
 */
export function scanSql(sql: string): SqlToken[] {
  assertLoaded();
  const bytes = Buffer.from(sql, 'utf8');
  const toChar = byteToCharOffsets(sql, bytes.length);
  return readWith(sql, scanSync).tokens.map((t) => ({
    start: toChar[t.start],
    end: toChar[t.end],
    text: t.text,
    kind: t.tokenName === 'UNKNOWN' ? t.keywordName : t.tokenName,
  }));
}

/** Postgres's parse tree; a text it cannot parse is a TemplateError naming Postgres's reason. */
export function parseSql(sql: string): ParseResult {
  assertLoaded();
  return readWith(sql, parseSync);
}

function readWith<T>(sql: string, read: (sql: string) => T): T {
  try {
    return read(sql);
  } catch (err) {
    // The scanner's own message is terse ("syntax error"); the parser says what is wrong.
    throw new TemplateError('INVALID_TEMPLATE', [
      { rule: 'parse', message: `the SQL does not parse: ${parserMessage(sql, err)}` },
    ]);
  }
}

function parserMessage(sql: string, scanError: unknown): string {
  try {
    parseSync(sql);
  } catch (parseError) {
    if (parseError instanceof Error && parseError.message) return parseError.message;
  }
  return scanError instanceof Error && scanError.message ? scanError.message : String(scanError);
}

/** Maps each UTF-8 byte offset that starts a character to its UTF-16 index. */
function byteToCharOffsets(sql: string, byteLength: number): number[] {
  const map = new Array<number>(byteLength + 1);
  let byte = 0;
  for (let i = 0; i < sql.length; i++) {
    map[byte] = i;
    const code = sql.codePointAt(i) ?? 0;
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (code >= 0x10000) i++;
    byte += width;
  }
  map[byteLength] = sql.length;
  return map;
}
