import { loadModule, parseSync, scanSync } from 'libpg-query';
import type { ParseResult } from 'libpg-query';

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

/** Tokens as Postgres's scanner sees them, comments included. Throws on unterminated input. */
export function scanSql(sql: string): SqlToken[] {
  assertLoaded();
  const bytes = Buffer.from(sql, 'utf8');
  const toChar = byteToCharOffsets(sql, bytes.length);
  return scanSync(sql).tokens.map((t) => ({
    start: toChar[t.start],
    end: toChar[t.end],
    text: t.text,
    kind: t.tokenName === 'UNKNOWN' ? t.keywordName : t.tokenName,
  }));
}

export function parseSql(sql: string): ParseResult {
  assertLoaded();
  return parseSync(sql);
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
