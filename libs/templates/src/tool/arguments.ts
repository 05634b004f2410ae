import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { isIdentityParam } from '../model/identity';
import type { JsonSchema } from './json-schema';
import type { ReportFilter } from '../model/report';
import { DEFAULT_PAGE_SIZE } from '../model/report';

const ajv = new Ajv({
  allErrors: true,
  useDefaults: true,
  strict: false,
  coerceTypes: false,
  verbose: true,
});
addFormats(ajv, ['date']);

/**
 * Validators by schema object: equal tools share one schema (SCHEMAS), so one validator.
 * Ajv's own cache (a Map by schema object) would keep every schema ever compiled, also of
 * report versions long gone; here a validator lives as long as a tool holds its schema.
 */
const compiled = new WeakMap<object, ValidateFunction>();

function compile(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

export type ToolArguments = Record<string, unknown>;

export type ArgumentCheck =
  | { ok: true; args: ToolArguments; page: number; pageSize: number }
  | { ok: false; message: string };

/** Compiled once per report version; validates and fills defaults on a copy of the input. */
export class ArgumentValidator {
  private readonly validate: ValidateFunction;

  constructor(
    private readonly schema: JsonSchema,
    private readonly filters: readonly ReportFilter[],
  ) {
    this.validate = compile(schema);
  }

  check(raw: unknown): ArgumentCheck {
    const input = raw ?? {};
    if (typeof input !== 'object' || Array.isArray(input)) {
      return { ok: false, message: 'arguments must be a JSON object' };
    }
    const bound = Object.keys(input).find(isBoundIdentityKey);
    if (bound !== undefined) {
      return {
        ok: false,
        message: `"${bound}" is bound to your identity and cannot be passed as an argument; remove it`,
      };
    }
    const args = withoutNulls(copyJson(input) as ToolArguments, this.schema);
    if (!this.validate(args)) {
      return { ok: false, message: describeErrors(this.validate.errors ?? [], this.schema) };
    }
    const rangeProblem = this.reversedRange(args);
    if (rangeProblem) return { ok: false, message: rangeProblem };
    return {
      ok: true,
      args,
      page: (args.page as number | undefined) ?? 1,
      pageSize: (args.page_size as number | undefined) ?? DEFAULT_PAGE_SIZE,
    };
  }

  private reversedRange(args: ToolArguments): string | undefined {
    for (const filter of this.filters) {
      const value = args[filter.name] as Record<string, string | number | undefined> | undefined;
      if (!value) continue;
      if (filter.type === 'date_range' && value.start && value.end && value.start > value.end) {
        return `${filter.name}.start must not be after ${filter.name}.end; got ${value.start} and ${value.end}`;
      }
      if (filter.type === 'number_range' && Number(value.min) > Number(value.max)) {
        return `${filter.name}.min must not be greater than ${filter.name}.max; got ${value.min} and ${value.max}`;
      }
    }
    return undefined;
  }
}

/**
 * `null` for an optional argument means "not given": strict provider modes make every property
 * required and send null for the unused ones. A range whose bounds are all null is not given
 * either. A null for a required argument stays, and fails validation with its own message.
 */
export function withoutNulls(args: ToolArguments, schema: JsonSchema): ToolArguments {
  const required = new Set(schema.required ?? []);
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (required.has(key) || !(key in args)) continue;
    const value = args[key];
    if (value === null) {
      delete args[key];
    } else if (property.type === 'object' && isPlainObject(value)) {
      const keys = Object.keys(value);
      const kept = withoutNulls(value, property);
      if (keys.length > 0 && Object.keys(kept).length === 0) delete args[key];
    }
  }
  return args;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of parsed JSON arguments deep enough for `withoutNulls` and ajv's defaults to change
 * freely (plain objects and arrays are copied, anything else is shared). Arguments are bounded
 * in depth and size before they get here (argumentBoundsProblem), and this is far cheaper
 * than structuredClone, which serialises the whole value.
 */
function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Record<string, unknown>)[key]);
    // an own "__proto__" key (JSON.parse makes one) stays a key, as validation must see it
    if (key === '__proto__')
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = item;
  }
  return copy;
}

/** A key that NFKC, case folding and zero-width removal leave as it is. */
const PLAIN_KEY = /^[a-z0-9_]*$/;

/**
 * Keys that look like identity parameters once case and Unicode compatibility forms are
 * folded (`Tenant_ID`, fullwidth `ｔｅｎａｎｔ_ｉｄ`): refused loudly instead of ignored.
 */
export function isBoundIdentityKey(key: string): boolean {
  // the common case: nothing to fold
  if (PLAIN_KEY.test(key)) return isIdentityParam(key);
  const folded = key
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u200b-\u200d\ufeff]/g, '');
  return isIdentityParam(folded);
}

function argumentPath(error: ErrorObject): string {
  return error.instancePath.replace(/^\//, '').replace(/\//g, '.');
}

function describeError(error: ErrorObject, schema: JsonSchema): string {
  const path = argumentPath(error);
  const got = (v: unknown) => JSON.stringify(v);
  const allowed = Object.keys(schema.properties ?? {}).join(', ');
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      return path
        ? `${path} has unknown field "${extra}"`
        : `unknown argument "${extra}"; allowed arguments: ${allowed}`;
    }
    case 'required':
      return `missing required argument "${(error.params as { missingProperty: string }).missingProperty}"`;
    case 'enum':
      return `${path} must be one of ${(error.params as { allowedValues: string[] }).allowedValues.join(', ')}; got ${got(error.data)}`;
    case 'type':
      return `${path} must be ${article((error.params as { type: string }).type)}; got ${got(error.data)}`;
    case 'format':
    case 'pattern':
      return `${path} must be a date in YYYY-MM-DD format; got ${got(error.data)}`;
    case 'minimum':
    case 'maximum': {
      const { comparison, limit } = error.params as { comparison: string; limit: number };
      return `${path} must be ${comparison} ${limit}; got ${got(error.data)}`;
    }
    case 'minProperties':
      return `${path} must set at least one bound`;
    default:
      return `${path || 'arguments'} ${error.message ?? 'is invalid'}; got ${got(error.data)}`;
  }
}

function article(type: string): string {
  return type === 'integer' || type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;
}

function describeErrors(errors: ErrorObject[], schema: JsonSchema): string {
  // ajv reports a failed `pattern` and `format` for the same bad date; say it once.
  const messages = [...new Set(errors.map((e) => describeError(e, schema)))];
  return messages.join('; ');
}
