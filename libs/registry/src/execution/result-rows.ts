import { columnTypeName } from '@app/db';
import type { GuardedReadResult } from '@app/db';

/** The result's columns with their type names. */
export function columnsOf(result: GuardedReadResult): Array<{ name: string; type: string }> {
  return result.fields.map((f) => ({ name: f.name, type: columnTypeName(f.dataTypeID) }));
}

/** The first `count` rows as objects keyed by column name, as the API returns them. */
export function rowObjects(result: GuardedReadResult, count: number): Record<string, unknown>[] {
  const names = result.fields.map((f) => f.name);
  const rows = new Array<Record<string, unknown>>(count);
  for (let r = 0; r < count; r++) {
    const values = result.rows[r];
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) row[names[c]] = values[c];
    rows[r] = row;
  }
  return rows;
}
