import { createHash } from 'node:crypto';
import { generatedToolProblem, GeneratedTool, NEVER_SMOKE_TESTED } from './generated-tools';
import { generatedRecord } from '../snapshot.spec-helper';

describe('generatedToolProblem', () => {
  it('finds nothing wrong with an active tool whose source matches its sha256 and schema compiles', () => {
    expect(generatedToolProblem(generatedRecord('g'))).toBeUndefined();
  });

  it('refuses a disabled tool', () => {
    expect(generatedToolProblem({ ...generatedRecord('g'), status: 'disabled' })).toBe('disabled');
  });

  it('refuses a source that does not match its sha256, naming both digests', () => {
    const record = generatedRecord('g');
    const tampered = { ...record, source: `${record.source};exfiltrate()` };
    const actual = createHash('sha256').update(tampered.source).digest('hex');
    const problem = generatedToolProblem(tampered);
    expect(problem).toContain('does not match its sha256');
    expect(problem).toContain(record.sha256.slice(0, 12));
    expect(problem).toContain(actual.slice(0, 12));
  });

  it.each([
    ['null', null],
    ['a string', 'object'],
    ['an array schema', { type: 'array' }],
    ['a schema without a type', { properties: {} }],
  ])('refuses an input schema that is %s', (_what, inputSchema) => {
    expect(generatedToolProblem({ ...generatedRecord('g'), inputSchema })).toBe(
      'its schema is not a JSON Schema with type "object"',
    );
  });

  it('refuses a schema that does not compile', () => {
    const inputSchema = { type: 'object', properties: { n: { type: 'no-such-type' } } };
    expect(generatedToolProblem({ ...generatedRecord('g'), inputSchema })).toMatch(
      /^its schema does not compile: /,
    );
  });
});

describe('GeneratedTool', () => {
  it('serves the record as a read-only tool of its name, description and schema', () => {
    const record = generatedRecord('g_sum');
    expect(new GeneratedTool(record).definition).toEqual({
      name: record.name,
      description: record.description,
      inputSchema: record.inputSchema,
      readOnly: true,
    });
  });

  it('tells the model when a tool was approved without a smoke test', () => {
    const record = { ...generatedRecord('g_new'), smokeTested: false };
    expect(new GeneratedTool(record).definition.description).toBe(
      `${record.description} ${NEVER_SMOKE_TESTED}`,
    );
  });
});
