/**
 * The Author form's model of a report document, kept apart from the screen so it is tested
 * without a browser. The form edits the members it knows; every other member of the loaded
 * document (one added to the API later included) is carried through untouched, and a save of an
 * existing report sends only what changed, as a JSON Merge Patch (PATCH /v1/admin/reports/{id}):
 * a save can never wipe a member the form does not show.
 */
export const CHART_TYPES = ['bar', 'line', 'area', 'pie', 'table'] as const;

export interface FilterRow {
  name: string;
  type: string;
  required: boolean;
  enumValues: string;
  defaultValue: string;
  description: string;
}
export interface FieldRow {
  name: string;
  type: string;
  description: string;
}
export interface ChartRow {
  /** '' = no hint (the gateway infers one) */
  type: '' | (typeof CHART_TYPES)[number];
  x: string;
  /** measures, comma-separated */
  y: string;
  series: string;
}
export interface Draft {
  id: string;
  name: string;
  description: string;
  category: string;
  sql: string;
  filters: FilterRow[];
  fields: FieldRow[];
  /** '' = the gateway's own database */
  datasource: string;
  /** one per line */
  synonyms: string;
  exampleQuestions: string;
  runAsTask: boolean;
  /** seconds the result cache answers again (issue #41); '' or 0: never */
  cacheTtlSeconds: string;
  chart: ChartRow;
}

/** A report document as the API returns it: the members the form knows, and any others. */
export type DocumentJson = Record<string, unknown>;

export const EMPTY_DRAFT: Draft = {
  id: '',
  name: '',
  description: '',
  category: '',
  sql: '',
  filters: [],
  fields: [],
  datasource: '',
  synonyms: '',
  exampleQuestions: '',
  runAsTask: false,
  cacheTtlSeconds: '',
  chart: { type: '', x: '', y: '', series: '' },
};

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const lines = (v: unknown): string => (Array.isArray(v) ? v.map(String).join('\n') : '');
const items = (v: string, separator: RegExp): string[] =>
  v
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);

export function toDraft(doc: DocumentJson): Draft {
  const chart = (doc.chart ?? {}) as { type?: string; x?: string; y?: string[]; series?: string };
  const filters = (Array.isArray(doc.filters) ? doc.filters : []) as Array<Record<string, unknown>>;
  const fields = (Array.isArray(doc.fields) ? doc.fields : []) as Array<Record<string, unknown>>;
  return {
    id: text(doc.id),
    name: text(doc.name),
    description: text(doc.description),
    category: text(doc.category),
    sql: text(doc.sql_template),
    filters: filters.map((f) => ({
      name: text(f.name),
      type: text(f.type),
      required: f.required === true,
      enumValues: Array.isArray(f.enum_values) ? f.enum_values.join(', ') : '',
      defaultValue: f.default === null || f.default === undefined ? '' : JSON.stringify(f.default),
      description: text(f.description),
    })),
    fields: fields.map((f) => ({
      name: text(f.name),
      type: text(f.type),
      description: text(f.description),
    })),
    datasource: text(doc.datasource),
    synonyms: lines(doc.synonyms),
    exampleQuestions: lines(doc.example_questions),
    runAsTask: doc.run_as_task === true,
    cacheTtlSeconds:
      typeof doc.cache_ttl_seconds === 'number' && doc.cache_ttl_seconds > 0
        ? String(doc.cache_ttl_seconds)
        : '',
    chart: {
      type: (CHART_TYPES as readonly string[]).includes(chart.type ?? '')
        ? (chart.type as ChartRow['type'])
        : '',
      x: text(chart.x),
      y: Array.isArray(chart.y) ? chart.y.join(', ') : '',
      series: text(chart.series),
    },
  };
}

function filterDefault(value: string): unknown {
  if (!value.trim()) return null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The members the form owns, as the document holds them; undefined: the member is absent. */
function formMembers(draft: Draft): DocumentJson {
  const { chart } = draft;
  const synonyms = items(draft.synonyms, /\n/);
  const questions = items(draft.exampleQuestions, /\n/);
  const measures = items(chart.y, /,/);
  return {
    name: draft.name,
    description: draft.description,
    category: draft.category,
    sql_template: draft.sql,
    filters: draft.filters.map((f) => {
      const values = items(f.enumValues, /,/);
      return {
        name: f.name,
        type: f.type,
        description: f.description,
        required: f.required,
        enum_values: values.length ? values : null,
        default: filterDefault(f.defaultValue),
      };
    }),
    fields: draft.fields.map((f) => ({ name: f.name, type: f.type, description: f.description })),
    datasource: draft.datasource || undefined,
    synonyms: synonyms.length ? synonyms : undefined,
    example_questions: questions.length ? questions : undefined,
    run_as_task: draft.runAsTask || undefined,
    cache_ttl_seconds: cacheTtl(draft.cacheTtlSeconds),
    chart: chart.type
      ? {
          type: chart.type,
          ...(chart.x ? { x: chart.x } : {}),
          ...(measures.length ? { y: measures } : {}),
          ...(chart.series ? { series: chart.series } : {}),
        }
      : undefined,
  };
}

/** The TTL as the document holds it: a whole number of seconds; blank or 0: absent. */
function cacheTtl(text: string): number | undefined {
  const n = Number(text.trim());
  return text.trim() && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** An absent member and one stored as nothing (`[]`, `false`, `''`) mean the same to the form. */
const blank = (v: unknown): boolean =>
  v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && !v.length);

/**
 * The whole document the form stands for: the loaded one with the form's members laid over it,
 * so members the form does not know are carried as loaded.
 */
export function formDocument(draft: Draft, loaded: DocumentJson = {}): DocumentJson {
  const doc: DocumentJson = { ...loaded };
  for (const [key, value] of Object.entries(formMembers(draft))) {
    if (value !== undefined) doc[key] = value;
    else if (!(key in loaded && blank(loaded[key]))) delete doc[key];
  }
  if (doc.status === undefined) doc.status = 'active';
  return doc;
}

/** JSON with object keys sorted: equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const isObject = (v: unknown): v is DocumentJson =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The merge patch from `loaded` to `next`: changed members, `null` for removed ones, objects
 * (the chart hint) diffed member by member, since a merge patch merges them that way.
 */
export function changes(loaded: DocumentJson, next: DocumentJson): DocumentJson {
  const patch: DocumentJson = {};
  for (const key of new Set([...Object.keys(loaded), ...Object.keys(next)])) {
    const [before, after] = [loaded[key], next[key]];
    if (!(key in next)) patch[key] = null;
    else if (isObject(before) && isObject(after)) {
      const inner = changes(before, after);
      if (Object.keys(inner).length) patch[key] = inner;
    } else if (canonical(before) !== canonical(after)) patch[key] = after;
  }
  return patch;
}
