/**
 * The request bodies of the call routes, parsed once at the edge. A shape error is the
 * programmer's (a 400 saying what to send); bad argument content is the model's (an
 * `is_error` result it can act on).
 */

export type Encoding = 'objects' | 'compact';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const CALL_KEYS = ['arguments', 'encoding'];

export interface CallRequest {
  /** the arguments as given, or the message of a JSON string that does not parse */
  arguments: Parsed<unknown>;
  encoding: Encoding;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseEncoding(value: unknown, where: string): Parsed<Encoding | undefined> {
  if (value === undefined || value === '') return { ok: true, value: undefined };
  if (value === 'compact' || value === 'objects') return { ok: true, value };
  return {
    ok: false,
    message: `${where} must be "objects" or "compact"; got ${JSON.stringify(value)}`,
  };
}

/** Arguments as an object, or as the JSON string OpenAI puts in `function.arguments`. */
export function parseArguments(value: unknown): Parsed<unknown> {
  if (typeof value !== 'string') return { ok: true, value };
  if (value.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(value) as unknown };
  } catch (err) {
    return {
      ok: false,
      message: `arguments is a string that is not valid JSON (${err instanceof Error ? err.message : 'parse error'}); send a JSON object`,
    };
  }
}

/** `POST /v1/tools/{name}/call`: `{"arguments": {...} | "<json>", "encoding"?}`, nothing else. */
export function parseCallRequest(body: unknown, queryEncoding: unknown): Parsed<CallRequest> {
  const input = body ?? {};
  if (!isObject(input))
    return {
      ok: false,
      message:
        'the body must be a JSON object like {"arguments":{...}}; put the tool\'s arguments under "arguments"',
    };
  const unknown = Object.keys(input).filter((k) => !CALL_KEYS.includes(k));
  if (unknown.length > 0) {
    const example = JSON.stringify({
      arguments: Object.fromEntries(unknown.map((k) => [k, input[k]])),
    });
    return {
      ok: false,
      message: `unknown top-level key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}: put the tool's arguments under "arguments", e.g. ${example.slice(0, 200)}`,
    };
  }
  const fromBody = parseEncoding(input.encoding, 'encoding');
  if (!fromBody.ok) return fromBody;
  const fromQuery = parseEncoding(queryEncoding, 'the encoding query parameter');
  if (!fromQuery.ok) return fromQuery;
  return {
    ok: true,
    value: {
      arguments: parseArguments(input.arguments),
      encoding: fromBody.value ?? fromQuery.value ?? 'objects',
    },
  };
}
