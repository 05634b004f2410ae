import { isSystemSchema } from './allowed-syntax';
import type { AstFields, CteScope } from './ast-walk';

/** Tables a query may read, by schema. Names are compared exactly, as Postgres stores them. */
export interface TableWhitelist {
  defaultSchema: string;
  tables: ReadonlyMap<string, ReadonlySet<string>>;
  /** `schema.table` list for messages */
  display: string;
}

/** 'schema.table' or bare 'table' (in defaultSchema); entries in system schemas are dropped. */
export function buildTableWhitelist(
  defaultSchema: string,
  entries: readonly string[],
): TableWhitelist {
  const tables = new Map<string, Set<string>>();
  const shown: string[] = [];
  for (const entry of entries) {
    const dot = entry.indexOf('.');
    const schema = dot < 0 ? defaultSchema : entry.slice(0, dot);
    const table = dot < 0 ? entry : entry.slice(dot + 1);
    if (table === '' || isSystemSchema(schema)) continue;
    const set = tables.get(schema) ?? new Set<string>();
    set.add(table);
    tables.set(schema, set);
    shown.push(`${schema}.${table}`);
  }
  return { defaultSchema, tables, display: shown.join(', ') || 'none' };
}

/**
 * Checks one RangeVar; returns a message when Postgres would read a relation the whitelist
 * does not allow. Unqualified names are CTEs when one is in scope, otherwise tables of the
 * default schema, except `pg_*` names: pg_catalog is searched before any schema of the
 * search_path, so `pg_roles` is the catalog view whatever the default schema holds.
 */
export function checkRelation(
  rangeVar: AstFields,
  scope: CteScope,
  whitelist: TableWhitelist,
): string | undefined {
  const relname = stringField(rangeVar, 'relname') ?? '';
  const schema = stringField(rangeVar, 'schemaname');
  const catalog = stringField(rangeVar, 'catalogname');
  const shown = [catalog, schema, relname].filter((p) => p !== undefined).join('.');
  if (catalog !== undefined) {
    return `table "${shown}" names a database; cross-database references are not allowed`;
  }
  if (schema === undefined && scope.has(relname)) return undefined;
  if (schema !== undefined && isSystemSchema(schema)) {
    return `table "${shown}" is in system schema ${schema}, which is never allowed`;
  }
  const allowed = whitelist.tables.get(schema ?? whitelist.defaultSchema)?.has(relname) ?? false;
  if (allowed && (schema !== undefined || !relname.startsWith('pg_'))) return undefined;
  const allowedList = `(allowed: ${whitelist.display})`;
  return `table "${shown}" is not in the whitelist ${allowedList}${hint(relname, whitelist)}`;
}

/** Quoted names keep their case: `"Orders"` is not `orders`. Say so when that is the mistake. */
function hint(relname: string, whitelist: TableWhitelist): string {
  if (relname.startsWith('pg_')) return '; pg_* names resolve to the system catalogs';
  const lower = relname.toLowerCase();
  if (lower === relname) return '';
  for (const [schema, tables] of whitelist.tables) {
    if (tables.has(lower))
      return `; did you mean ${schema}.${lower}? quoted names are case-sensitive`;
  }
  return '';
}

function stringField(fields: AstFields, key: string): string | undefined {
  const value = fields[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
