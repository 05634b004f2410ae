/**
 * What a generated tool's schema may not ask the gateway to do. The schema is ajv-compiled
 * in the gateway (its test arguments are checked against it at approval), so every keyword
 * that would make the gateway's event loop run a regular expression of the tool's choosing,
 * or spend time quadratic in an argument, is refused before ajv sees the schema.
 *
 * The schema is walked by its keywords, as a validator reads it, never by its paths: the
 * values of `properties` are schemas whatever their names (a property named `properties` or
 * `pattern` is a property like any other), and data keywords (`enum`, `const`, `default`,
 * `examples`) are not schemas at all. A `$ref` must land on a schema the walk reached.
 */

/** keywords whose value is one subschema (or, for `items`, a list of them) */
const ONE_SCHEMA = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
/** keywords whose value is a list of subschemas */
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** keywords whose value maps names to subschemas (`dependencies` values may be name lists) */
const SCHEMA_MAP = new Set([
  '$defs',
  'definitions',
  'dependencies',
  'dependentSchemas',
  'patternProperties',
  'properties',
]);

/** keywords that make the gateway run a regular expression the tool chose */
const REGEX_KEYWORDS = new Set(['pattern', 'patternProperties', '$data']);
/** formats that are themselves regular expressions */
const REGEX_FORMATS = new Set(['regex', 'ecma-regex']);
/** keywords that re-root references somewhere the walk cannot follow */
const ANCHOR_KEYWORDS = new Set([
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$recursiveAnchor',
  '$recursiveRef',
]);

const MAX_DEPTH = 32;

interface Found {
  problems: string[];
  schemas: Set<object>;
  refs: Array<{ ref: unknown; at: string }>;
}

const pointer = (at: string, key: string | number) =>
  `${at}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** Problems of a generated schema that no ajv option makes safe: regexes, uniqueItems, depth. */
export function schemaProblems(schema: unknown): string[] {
  const found: Found = { problems: [], schemas: new Set(), refs: [] };
  const stack: Array<[unknown, string, number]> = [[schema, '', 0]];
  while (stack.length > 0) {
    const [node, at, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) {
      found.problems.push(`the schema is nested more than ${MAX_DEPTH} levels deep`);
      break;
    }
    // booleans are schemas too (true/false); anything else that is not an object is ajv's to refuse
    if (!node || typeof node !== 'object' || Array.isArray(node)) continue;
    found.schemas.add(node);
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      keywordProblems(key, value, at || '/', found);
      for (const [child, childAt] of subschemas(key, value, pointer(at, key)))
        stack.push([child, childAt, depth + 1]);
    }
  }
  for (const { ref, at } of found.refs) {
    const target = typeof ref === 'string' ? resolveLocal(schema, ref) : undefined;
    const isSchema =
      typeof target === 'boolean' ||
      (typeof target === 'object' && target !== null && found.schemas.has(target));
    if (!isSchema)
      found.problems.push(
        `"$ref" at ${at} must point at a schema inside this one ("#", "#/$defs/name", "#/properties/name"); got ${JSON.stringify(ref)}`,
      );
  }
  return found.problems;
}

/** What is wrong with one keyword of a schema node. */
function keywordProblems(key: string, value: unknown, at: string, found: Found): void {
  if (REGEX_KEYWORDS.has(key))
    found.problems.push(
      `"${key}" at ${at} is not allowed: regular expressions from a generated schema would run in the gateway; check the format in run() instead`,
    );
  else if (key === 'format' && typeof value === 'string' && REGEX_FORMATS.has(value))
    found.problems.push(`format "${value}" at ${at} is not allowed`);
  else if (key === 'uniqueItems' && value !== false)
    found.problems.push(
      `"uniqueItems" at ${at} is not allowed: checking it costs the gateway time quadratic in the array; check uniqueness in run() instead`,
    );
  else if (ANCHOR_KEYWORDS.has(key))
    found.problems.push(`"${key}" at ${at} is not allowed in a generated schema`);
  else if (key === '$ref') found.refs.push({ ref: value, at });
}

/** The subschemas a keyword holds, with their JSON pointers. */
function subschemas(key: string, value: unknown, at: string): Array<[unknown, string]> {
  if (ONE_SCHEMA.has(key))
    return Array.isArray(value) ? value.map((v, i) => [v, pointer(at, i)]) : [[value, at]];
  if (SCHEMA_LIST.has(key) && Array.isArray(value)) return value.map((v, i) => [v, pointer(at, i)]);
  if (SCHEMA_MAP.has(key) && value && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => !Array.isArray(v)) // `dependencies: { a: ['b'] }` names properties
      .map(([name, v]) => [v, pointer(at, name)]);
  return [];
}

/** The node a local JSON pointer ("#", "#/a/b") names in `root`; undefined when it names none. */
function resolveLocal(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let step: string;
    try {
      step = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, step)) return undefined;
    node = (node as Record<string, unknown>)[step];
  }
  return node;
}
