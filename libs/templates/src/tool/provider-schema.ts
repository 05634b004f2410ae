/**
 * A tool's JSON Schema rewritten into the subset one provider accepts. Keywords the provider
 * does not document are not silently lost: their meaning moves into the description (as the
 * providers' own SDK helpers do), and the gateway's validator still enforces them on a call.
 *
 * Sources (read 2026-12): OpenAI "Structured Outputs > Supported schemas" (strict function
 * calling: every property in `required`, optional ones as a union with null,
 * `additionalProperties: false` on every object; string: pattern, format; number: minimum,
 * maximum; array: minItems, maxItems; no minLength/maxLength/minProperties/default), Anthropic
 * "Structured outputs > JSON Schema limitations" (strict tool use: no numeric or string-length
 * constraints, arrays only minItems 0/1, `additionalProperties: false` on every object, formats
 * date-time/time/date/email/uri/uuid/ipv4/ipv6), Gemini `FunctionDeclaration.parametersJsonSchema`
 * (type, format, description, enum, items, minItems, maxItems, minimum, maximum, anyOf,
 * properties, additionalProperties, required).
 */

export type SchemaObject = Record<string, unknown>;

export interface SchemaRules {
  /** keywords copied as they are (type, properties, required, items, additionalProperties are structural) */
  readonly keep: ReadonlySet<string>;
  /** string formats the provider accepts; any other format becomes description text */
  readonly formats: ReadonlySet<string>;
  /** OpenAI strict: every property required, the optional ones nullable */
  readonly allRequired: boolean;
  /** `additionalProperties: false` on every object (free-form objects make a schema non-strict) */
  readonly closeObjects: boolean;
}

const STRUCTURAL = ['type', 'description', 'properties', 'required', 'items', 'enum', 'anyOf'];

export const OPENAI_STRICT_RULES: SchemaRules = {
  keep: new Set([...STRUCTURAL, 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems']),
  formats: new Set([
    'date-time',
    'time',
    'date',
    'duration',
    'email',
    'hostname',
    'ipv4',
    'ipv6',
    'uuid',
  ]),
  allRequired: true,
  closeObjects: true,
};

export const ANTHROPIC_STRICT_RULES: SchemaRules = {
  keep: new Set(STRUCTURAL),
  formats: new Set(['date-time', 'time', 'date', 'email', 'uri', 'uuid', 'ipv4', 'ipv6']),
  allRequired: false,
  closeObjects: true,
};

export const GEMINI_RULES: SchemaRules = {
  keep: new Set([...STRUCTURAL, 'minimum', 'maximum', 'minItems', 'maxItems']),
  formats: new Set(['date-time']),
  allRequired: false,
  closeObjects: false,
};

export interface ProviderSchema {
  schema: SchemaObject;
  /** false when the schema cannot be expressed under the rules (a free-form object) */
  strictable: boolean;
}

/** The schema under `rules`; the input is not modified. */
export function providerSchema(schema: SchemaObject, rules: SchemaRules): ProviderSchema {
  const state = { strictable: true };
  return { schema: rewrite(schema, rules, state), strictable: state.strictable };
}

function note(key: string, value: unknown): string | undefined {
  switch (key) {
    case 'minimum':
      return `minimum ${String(value)}`;
    case 'maximum':
      return `maximum ${String(value)}`;
    case 'minLength':
      return `at least ${String(value)} characters`;
    case 'maxLength':
      return `at most ${String(value)} characters`;
    case 'minItems':
      return `at least ${String(value)} items`;
    case 'maxItems':
      return `at most ${String(value)} items`;
    case 'minProperties':
      return `set at least ${String(value)} of its fields`;
    case 'default':
      return `default ${JSON.stringify(value)}`;
    case 'format':
      return value === 'date' ? 'a date, YYYY-MM-DD' : `format ${String(value)}`;
    case 'pattern':
      return undefined; // the format note says it in words; a regex in prose helps nobody
    default:
      return undefined;
  }
}

const DROPPED_SILENTLY = new Set(['$schema', 'title', 'examples', '$id']);

function rewrite(input: SchemaObject, rules: SchemaRules, state: { strictable: boolean }) {
  const out: SchemaObject = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key === 'properties' || key === 'required' || key === 'additionalProperties') continue;
    if (key === 'items' && value && typeof value === 'object') {
      out.items = rewrite(value as SchemaObject, rules, state);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      out.anyOf = value.map((v) => rewrite(v as SchemaObject, rules, state));
    } else if (key === 'format' && rules.formats.has(String(value))) {
      out.format = value;
    } else if (key !== 'format' && rules.keep.has(key)) {
      out[key] = value;
    } else if (!DROPPED_SILENTLY.has(key)) {
      const text = note(key, value);
      if (text) notes.push(text);
    }
  }
  if (input.type === 'object') rewriteObject(input, out, rules, state);
  if (notes.length > 0) {
    const base = typeof out.description === 'string' ? out.description : '';
    out.description = base ? `${base} (${notes.join(', ')})` : `(${notes.join(', ')})`;
  }
  return out;
}

function rewriteObject(
  input: SchemaObject,
  out: SchemaObject,
  rules: SchemaRules,
  state: { strictable: boolean },
): void {
  const properties = (input.properties ?? {}) as Record<string, SchemaObject>;
  const names = Object.keys(properties);
  const required = new Set(Array.isArray(input.required) ? (input.required as string[]) : []);
  const freeForm = names.length === 0 || input.additionalProperties !== false;
  if (rules.closeObjects && freeForm && names.length === 0) state.strictable = false;
  const rewritten: Record<string, SchemaObject> = {};
  for (const name of names) {
    const property = rewrite(properties[name], rules, state);
    rewritten[name] = rules.allRequired && !required.has(name) ? nullable(property) : property;
  }
  if (names.length > 0 || !rules.closeObjects) out.properties = rewritten;
  const requiredList = rules.allRequired ? names : names.filter((n) => required.has(n));
  if (requiredList.length > 0 || rules.allRequired) out.required = requiredList;
  if (rules.closeObjects) out.additionalProperties = false;
  else if (input.additionalProperties === false) out.additionalProperties = false;
}

/**
 * The schema with each optional top-level property also allowing null ("not given", as the
 * call path reads it): MCP clients such as LangChain validate arguments against the listed
 * `inputSchema` before a call leaves them, and models often send null for a filter they skip.
 */
export function nullableOptionals(input: SchemaObject): SchemaObject {
  const properties = input.properties as Record<string, SchemaObject> | undefined;
  if (!properties) return input;
  const required = new Set(Array.isArray(input.required) ? (input.required as string[]) : []);
  const rewritten: Record<string, SchemaObject> = {};
  for (const [name, property] of Object.entries(properties))
    rewritten[name] = required.has(name) ? property : nullable(property);
  return { ...input, properties: rewritten };
}

/** "Not given" as the strict providers spell it: the value or null. */
function nullable(schema: SchemaObject): SchemaObject {
  const hint = 'null when not used';
  const description =
    typeof schema.description === 'string' ? `${schema.description}; ${hint}` : hint;
  const type = schema.type;
  if (type === 'object' || type === 'array') {
    const inner = { ...schema };
    delete inner.description;
    return { anyOf: [inner, { type: 'null' }], description };
  }
  if (typeof type === 'string') {
    const enumValues = Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {};
    return { ...schema, type: [type, 'null'], ...enumValues, description };
  }
  return { anyOf: [schema, { type: 'null' }], description };
}
