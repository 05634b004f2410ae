import { schemaProblems } from '@app/meta-tool';

/** A catastrophic-backtracking pattern: doubling time per character on 'aaa…!'. */
const EVIL = '^(a+)+$';

const refused = (schema: unknown) => schemaProblems(schema);

describe('schemaProblems (what a generated schema may not make the gateway do)', () => {
  it.each<[string, unknown, RegExp]>([
    [
      'a pattern under a property named "properties"',
      { type: 'object', properties: { properties: { type: 'string', pattern: EVIL } } },
      /"pattern" at \/properties\/properties is not allowed/,
    ],
    [
      'a pattern under a property named "patternProperties"',
      {
        type: 'object',
        properties: { patternProperties: { type: 'object', properties: { x: { pattern: EVIL } } } },
      },
      /"pattern" at \/properties\/patternProperties\/properties\/x is not allowed/,
    ],
    [
      'patternProperties',
      { type: 'object', patternProperties: { [EVIL]: { type: 'string' } } },
      /"patternProperties" at \/ is not allowed/,
    ],
    [
      'a pattern inside propertyNames',
      { type: 'object', propertyNames: { pattern: EVIL } },
      /"pattern" at \/propertyNames is not allowed/,
    ],
    [
      'a pattern in items of an array in anyOf',
      { type: 'object', anyOf: [{ properties: { a: { items: [{ pattern: EVIL }] } } }] },
      /"pattern" at \/anyOf\/0\/properties\/a\/items\/0 is not allowed/,
    ],
    [
      'a pattern in $defs',
      { type: 'object', $defs: { s: { pattern: EVIL } } },
      /"pattern" at \/\$defs\/s is not allowed/,
    ],
    [
      'format: regex',
      { type: 'object', properties: { r: { type: 'string', format: 'regex' } } },
      /format "regex" at \/properties\/r is not allowed/,
    ],
    [
      'uniqueItems (quadratic in the test arguments)',
      { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } },
      /"uniqueItems" at \/properties\/xs is not allowed/,
    ],
    [
      'a $ref into data (a default that holds a pattern)',
      {
        type: 'object',
        default: { pattern: EVIL },
        properties: { x: { $ref: '#/default' } },
      },
      /"\$ref" at \/properties\/x must point at a schema inside this one/,
    ],
    [
      'a $ref to another document',
      { type: 'object', properties: { x: { $ref: 'https://example.com/s.json' } } },
      /"\$ref" at \/properties\/x must point at a schema/,
    ],
    [
      '$id (re-roots references)',
      { type: 'object', properties: { x: { $id: 'other' } } },
      /"\$id" at \/properties\/x is not allowed/,
    ],
  ])('refuses %s', (_, schema, says) => {
    expect(refused(schema).join('\n')).toMatch(says);
  });

  it('allows properties named like keywords, data keywords that look like schemas, and local refs', () => {
    expect(
      refused({
        type: 'object',
        $defs: { year: { type: 'integer', minimum: 2000 } },
        properties: {
          pattern: { type: 'string', enum: ['^(a+)+$'] },
          properties: { type: 'object', default: { pattern: EVIL }, examples: [{ pattern: 'x' }] },
          format: { type: 'string', const: 'regex' },
          year: { $ref: '#/$defs/year' },
          again: { $ref: '#/properties/year' },
          tree: { $ref: '#' },
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: false },
        },
        dependencies: { year: ['pattern'] },
      }),
    ).toEqual([]);
  });

  it('refuses a schema nested deeper than 32 levels', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) schema = { type: 'object', properties: { a: schema } };
    expect(refused(schema)).toEqual(['the schema is nested more than 32 levels deep']);
  });
});
