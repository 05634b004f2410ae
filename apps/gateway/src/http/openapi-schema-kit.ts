/**
 * The few builders the OpenAPI components are written with (openapi-schemas.ts): a reference,
 * the scalar types, an object whose members are required unless said otherwise, a list.
 */
export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = { type: 'string' };
export const int = { type: 'integer' };
export const bool = { type: 'boolean' };
export const anyObject = { type: 'object', additionalProperties: true };
export const obj = (
  properties: Record<string, Schema>,
  required: string[] = Object.keys(properties),
) => ({
  type: 'object',
  properties,
  required,
});
export const list = (items: Schema): Schema => ({ type: 'array', items });

/** A JSON Schema a tool takes or returns; any keywords. */
export const JsonSchema = { ...anyObject, description: 'a JSON Schema (draft 2020-12)' };
