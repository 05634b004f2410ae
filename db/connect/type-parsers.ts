/**
 * How column values come back, the same on `pg` and PGlite. Dates stay `YYYY-MM-DD`
 * (a JS Date would shift them by the server's time zone); numerics become numbers,
 * bigints become numbers while exact and text beyond 2^53.
 */
export const PG_OID = {
  int8: 20,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
} as const;

const asText = (value: string): string => value;

export const VALUE_PARSERS: Record<number, (value: string) => unknown> = {
  [PG_OID.int8]: (value) => {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value;
  },
  [PG_OID.numeric]: (value) => Number(value),
  [PG_OID.date]: asText,
  [PG_OID.timestamp]: asText,
  [PG_OID.timestamptz]: asText,
};

const TYPE_NAMES: Record<number, string> = {
  16: 'boolean',
  20: 'integer',
  21: 'integer',
  23: 'integer',
  25: 'string',
  700: 'number',
  701: 'number',
  1043: 'string',
  1042: 'string',
  1700: 'number',
  1082: 'date',
  1114: 'timestamp',
  1184: 'timestamp',
  114: 'json',
  3802: 'json',
  1009: 'string[]',
  1007: 'integer[]',
  1016: 'integer[]',
};

/** A column's type as the API reports it, from the Postgres type OID. */
export function columnTypeName(oid: number): string {
  return TYPE_NAMES[oid] ?? 'string';
}
