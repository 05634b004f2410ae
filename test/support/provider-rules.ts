/**
 * The providers' documented tool-schema rules, written out here independently of the
 * gateway's normaliser (libs/templates/src/tool/provider-schema.ts), for the client tests.
 */
export type Schema = Record<string, unknown>;

export const RULES = {
  openai: {
    keywords: [
      'type',
      'description',
      'properties',
      'required',
      'additionalProperties',
      'items',
      'enum',
      'anyOf',
      'pattern',
      'format',
      'minimum',
      'maximum',
      'minItems',
      'maxItems',
    ],
    allRequired: true,
  },
  anthropic: {
    keywords: [
      'type',
      'description',
      'properties',
      'required',
      'additionalProperties',
      'items',
      'enum',
      'anyOf',
      'format',
    ],
    allRequired: false,
  },
  gemini: {
    keywords: [
      'type',
      'description',
      'properties',
      'required',
      'additionalProperties',
      'items',
      'enum',
      'anyOf',
      'minimum',
      'maximum',
      'minItems',
      'maxItems',
    ],
    allRequired: false,
  },
};

export function violations(
  schema: Schema,
  rules: (typeof RULES)[keyof typeof RULES],
  strict: boolean,
  at = '$',
): string[] {
  const found: string[] = [];
  for (const key of Object.keys(schema))
    if (!rules.keywords.includes(key)) found.push(`${at}: keyword ${key}`);
  if (schema.type === 'object') {
    const names = Object.keys((schema.properties ?? {}) as object);
    if (strict && schema.additionalProperties !== false) found.push(`${at}: object not closed`);
    if (strict && rules.allRequired && JSON.stringify(schema.required) !== JSON.stringify(names))
      found.push(`${at}: not every property required`);
    for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
      found.push(...violations(sub, rules, strict, `${at}.${name}`));
  }
  if (schema.items) found.push(...violations(schema.items as Schema, rules, strict, `${at}[]`));
  for (const [i, sub] of ((schema.anyOf ?? []) as Schema[]).entries())
    found.push(...violations(sub, rules, strict, `${at}|${i}`));
  return found;
}

/** A value the schema accepts: the first enum value or non-null branch, 1, "x", false. */
function sample(schema: Schema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null);
  const branch = ((schema.anyOf ?? schema.oneOf ?? []) as Schema[]).find((s) => s.type !== 'null');
  if (branch) return sample(branch);
  const type = [schema.type].flat().find((t) => t !== 'null');
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  if (type === 'object') return {};
  return schema.format === 'date' ? '2026-01-01' : 'x';
}

/** The arguments a model sends: strict ones every key (null for the unused), else the required. */
export function modelArguments(schema: Schema, allKeys: boolean): Record<string, unknown> {
  const required = new Set((schema.required ?? []) as string[]);
  const args: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const nullable = JSON.stringify(sub).includes('"null"');
    if (allKeys) args[name] = nullable ? null : sample(sub);
    else if (required.has(name)) args[name] = sample(sub);
  }
  return args;
}
