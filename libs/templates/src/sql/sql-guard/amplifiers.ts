/**
 * Output amplifiers: functions whose result grows with one of their arguments, so a template of
 * a few bytes (`SELECT repeat('x', 400000000)`) makes Postgres build, and the gateway receive,
 * hundreds of megabytes. Each is allowed only when its size argument is a literal within a
 * bound, and never inside another amplifier's arguments (bounds would multiply).
 */
import { isRecord } from './ast-walk';
import type { AstFields } from './ast-walk';

/** Longest string repeat/lpad/rpad may build, in characters. */
export const MAX_AMPLIFIED_LENGTH = 10_000;
/** Largest number of values generate_series may produce. */
export const MAX_SERIES_SPAN = 1_000_000;
/** Largest number of elements array_fill may build. */
export const MAX_FILLED_ELEMENTS = 10_000;

export const AMPLIFIERS: ReadonlySet<string> = new Set([
  'repeat',
  'lpad',
  'rpad',
  'generate_series',
  'array_fill',
]);

/** Why a call to the amplifier `name` is refused, or undefined when its size is bounded. */
export function amplifierProblem(name: string, fields: AstFields): string | undefined {
  const args = Array.isArray(fields.args) ? fields.args : [];
  const nested = args.some(containsAmplifier);
  switch (name) {
    case 'repeat':
    case 'lpad':
    case 'rpad': {
      const size = integerLiteral(args[1]);
      const bound = `its length argument must be an integer literal of at most ${MAX_AMPLIFIED_LENGTH.toLocaleString('en-US')}`;
      if (size === undefined || size > MAX_AMPLIFIED_LENGTH) return `${name}: ${bound}`;
      return nested ? `${name}: ${bound}, and its arguments may not call ${name} again` : undefined;
    }
    case 'generate_series': {
      const span = seriesSpan(args);
      const bound = `its bounds (and step) must be literals spanning at most ${MAX_SERIES_SPAN.toLocaleString('en-US')} values`;
      if (span === undefined || span > MAX_SERIES_SPAN || nested)
        return `generate_series: ${bound}`;
      return undefined;
    }
    case 'array_fill': {
      const dims = arrayLiteral(args[1]);
      const count = dims?.reduce((a, b) => a * Math.max(b, 0), 1);
      const bound = `its dimensions must be an ARRAY[...] of integer literals with at most ${MAX_FILLED_ELEMENTS.toLocaleString('en-US')} elements in all`;
      if (count === undefined || count > MAX_FILLED_ELEMENTS || nested)
        return `array_fill: ${bound}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

function containsAmplifier(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsAmplifier);
  if (!isRecord(value)) return false;
  const call = value.FuncCall;
  if (isRecord(call) && Array.isArray(call.funcname)) {
    const last: unknown = call.funcname[call.funcname.length - 1];
    const name = isRecord(last) && isRecord(last.String) ? last.String.sval : undefined;
    if (typeof name === 'string' && AMPLIFIERS.has(name)) return true;
  }
  return Object.values(value).some(containsAmplifier);
}

/** The literal under any number of casts: `5`, `'5'`, `5::int`, `'2025-01-01'::date`. */
function literal(node: unknown): { number?: number; text?: string } | undefined {
  if (!isRecord(node)) return undefined;
  if (isRecord(node.TypeCast)) return literal(node.TypeCast.arg);
  const constant = node.A_Const;
  if (!isRecord(constant)) return undefined;
  if (isRecord(constant.ival)) {
    const value = constant.ival.ival;
    return { number: typeof value === 'number' ? value : 0 };
  }
  if (isRecord(constant.fval) && typeof constant.fval.fval === 'string')
    return { number: Number(constant.fval.fval) };
  if (isRecord(constant.sval) && typeof constant.sval.sval === 'string') {
    const text = constant.sval.sval;
    return /^\s*[-+]?\d+(\.\d+)?\s*$/.test(text) ? { number: Number(text), text } : { text };
  }
  return undefined;
}

function integerLiteral(node: unknown): number | undefined {
  const value = literal(node)?.number;
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

function arrayLiteral(node: unknown): number[] | undefined {
  const unwrapped = isRecord(node) && isRecord(node.TypeCast) ? node.TypeCast.arg : node;
  if (!isRecord(unwrapped) || !isRecord(unwrapped.A_ArrayExpr)) return undefined;
  const elements = unwrapped.A_ArrayExpr.elements;
  if (!Array.isArray(elements)) return [];
  const values = elements.map(integerLiteral);
  return values.every((v): v is number => v !== undefined) ? values : undefined;
}

/** How many values a literal generate_series yields: numbers, or dates/timestamps by an interval. */
function seriesSpan(args: readonly unknown[]): number | undefined {
  const [start, stop, step] = args.map(literal);
  if (!start || !stop) return undefined;
  if (start.number !== undefined && stop.number !== undefined) {
    const by = step === undefined ? 1 : step.number;
    if (by === undefined || by === 0 || !Number.isFinite(by)) return undefined;
    return Math.floor(Math.abs(stop.number - start.number) / Math.abs(by)) + 1;
  }
  const from = start.text === undefined ? NaN : Date.parse(start.text);
  const to = stop.text === undefined ? NaN : Date.parse(stop.text);
  const stepMs = step?.text === undefined ? undefined : intervalMs(step.text);
  if (Number.isNaN(from) || Number.isNaN(to) || !stepMs) return undefined;
  return Math.floor(Math.abs(to - from) / stepMs) + 1;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 28 * 86_400_000, // the shortest month, so the estimate errs on the large side
  year: 365 * 86_400_000,
};

/** `'1 day'`, `'7 days'`, `'1 month'` -> milliseconds (the shortest it can be); else undefined. */
function intervalMs(text: string): number | undefined {
  const match = /^\s*(\d+)\s*(second|minute|hour|day|week|month|year)s?\s*$/i.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2].toLowerCase()] ?? 0);
  return ms > 0 ? ms : undefined;
}
