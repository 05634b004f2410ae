import type { ColumnType } from 'kysely';

/** timestamps come back as ISO text (connect/type-parsers.ts), identically on pg and PGlite */
export type Timestamp = ColumnType<string, string | undefined, string>;

/**
 * A bigint column as it comes back: a number (type-parsers.ts turns int8 into a number while
 * it is exact; catalog versions, ids and counters stay far below 2^53).
 */
export type BigIntNumber = number;
