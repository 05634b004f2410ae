import type { SqlField } from '@app/db';

/** A result column as mysql2 describes it (the parts the mapping reads). */
export interface MysqlField {
  name: string;
  columnType: number;
  columnLength: number;
  characterSet: number;
  /** MariaDB's extended type info: `json` for a JSON column (an alias of LONGTEXT there) */
  extendedFormat?: string;
}

/** MySQL's column type codes (include/mysql_com.h, enum_field_types) that map to a report type. */
const T = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  BIT: 16,
  JSON: 245,
  NEWDECIMAL: 246,
} as const;

/** the `binary` character set: a string column holding bytes (BINARY, VARBINARY, BLOB) */
const BINARY_CHARSET = 63;

/**
 * Postgres type oids the gateway already names (db/type-parsers.ts): a MySQL column takes the oid
 * of the Postgres type its values look like, so columns, the result cache and charts read a
 * MySQL answer exactly as a Postgres one.
 */
const OID = {
  boolean: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  json: 114,
  float4: 700,
  float8: 701,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  numeric: 1700,
} as const;

type Kind = keyof typeof OID;

/** What a column's values are (issue #42): the mapping, pure and unit-tested. */
export function mysqlKind(field: MysqlField): Kind {
  switch (field.columnType) {
    case T.DECIMAL:
    case T.NEWDECIMAL:
      return 'numeric';
    case T.TINY:
      // BOOLEAN is TINYINT(1): MySQL has no other boolean
      return field.columnLength === 1 ? 'boolean' : 'int2';
    case T.SHORT:
    case T.LONG:
    case T.INT24:
    case T.YEAR:
      return 'int4';
    case T.LONGLONG:
      return 'int8';
    case T.FLOAT:
      return 'float4';
    case T.DOUBLE:
      return 'float8';
    case T.DATE:
    case T.NEWDATE:
      return 'date';
    case T.TIMESTAMP:
    case T.DATETIME:
      return 'timestamp';
    case T.TIME:
      return 'time';
    case T.JSON:
      return 'json';
    case T.BIT:
      return field.columnLength === 1 ? 'boolean' : 'bytea';
    default:
      if (field.extendedFormat === 'json') return 'json';
      return field.characterSet === BINARY_CHARSET ? 'bytea' : 'text';
  }
}

/** The result's fields, each with the oid of its kind. */
export function mysqlFields(fields: readonly MysqlField[]): SqlField[] {
  return fields.map((f) => ({ name: f.name, dataTypeID: OID[mysqlKind(f)] }));
}

/**
 * A value as mysql2 gives it (dates and big numbers as text: `dateStrings`, `bigNumberStrings`)
 * turned into what the same value reads as from Postgres: DECIMAL a number, BIGINT a number
 * while exact and text beyond 2^53, TINYINT(1) and BIT(1) booleans, bytes `\x` hex, JSON parsed.
 */
export function mysqlValue(kind: Kind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'numeric':
      return Number(value);
    case 'int8': {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : String(value);
    }
    case 'boolean':
      return Buffer.isBuffer(value) ? value.some((b) => b !== 0) : Number(value) !== 0;
    case 'bytea':
      return Buffer.isBuffer(value) ? `\\x${value.toString('hex')}` : String(value);
    case 'json':
      return typeof value === 'string' ? parseJson(value) : value;
    default:
      return Buffer.isBuffer(value) ? value.toString('utf8') : value;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A row of the result mapped column by column (kinds from mysqlKind, in column order). */
export function mysqlRow(kinds: readonly Kind[], row: readonly unknown[]): unknown[] {
  const out = new Array<unknown>(kinds.length);
  for (let i = 0; i < kinds.length; i++) out[i] = mysqlValue(kinds[i], row[i]);
  return out;
}

/** Bytes a row's values take as text: the measure the byte cap is checked against while rows arrive. */
export function rowBytes(row: readonly unknown[]): number {
  let bytes = 0;
  for (const v of row)
    if (v !== null && v !== undefined)
      bytes += Buffer.isBuffer(v)
        ? v.length * 2
        : typeof v === 'object'
          ? JSON.stringify(v).length
          : String(v).length;
  return bytes;
}
