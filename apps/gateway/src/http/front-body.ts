import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
// Fastify's own JSON parser library and options (onProtoPoisoning / onConstructorPoisoning
// 'error'), so the front lane accepts exactly the bodies the route would
import { parse as secureJsonParse } from 'secure-json-parse';

/** A JSON body read in front of Fastify: its bytes, and the value when it parsed. */
export interface FrontBody {
  raw: Buffer;
  /** undefined when the bytes are not JSON Fastify would accept (the route answers that 400) */
  value?: unknown;
}

const REPLAY = Symbol('gateway.replayBody');
type Replayable = IncomingMessage & { [REPLAY]?: Buffer };

/**
 * The parameters of `pathname` for a route pattern like `/v1/tools/:name/call`, or undefined
 * when it does not match. Encoded paths are left to Fastify's router.
 */
export function matchRoute(pattern: string, pathname: string): Record<string, string> | undefined {
  if (pathname.includes('%')) return undefined;
  const want = pattern.split('/');
  const have = pathname.split('/');
  if (want.length !== have.length) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      if (have[i] === '') return undefined;
      (params ??= {})[want[i].slice(1)] = have[i];
    } else if (want[i] !== have[i]) return undefined;
  }
  return params ?? {};
}

/**
 * Whether the front lane may read this POST's body itself: `application/json` (Fastify's
 * default parser, any parameters), a declared length within the body limit, no encoding.
 * Anything else (chunked, compressed, too large, another type) is left to Fastify whole.
 */
export function frontReadable(request: IncomingMessage, bodyLimit: number): boolean {
  const { headers } = request;
  const type = headers['content-type'];
  if (type === undefined || headers['content-encoding'] !== undefined) return false;
  const semicolon = type.indexOf(';');
  const media = (semicolon < 0 ? type : type.slice(0, semicolon)).trim().toLowerCase();
  if (media !== 'application/json') return false;
  const length = Number(headers['content-length']);
  return Number.isInteger(length) && length > 0 && length <= bodyLimit;
}

/** Reads the whole body (its length was checked) and parses it as Fastify's parser would. */
export function readFrontBody(request: IncomingMessage): Promise<FrontBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => {
      request.removeListener('data', onData);
      request.removeListener('end', done);
      request.removeListener('error', done);
      resolve(parseBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    };
    const onData = (chunk: Buffer) => chunks.push(chunk);
    request.on('data', onData);
    request.once('end', done);
    // an aborted body goes to Fastify as it is: its length check answers (or the socket is gone)
    request.once('error', done);
  });
}

function parseBody(raw: Buffer): FrontBody {
  try {
    const value: unknown = secureJsonParse(raw.toString('utf8'), {
      protoAction: 'error',
      constructorAction: 'error',
    });
    return { raw, value };
  } catch {
    return { raw };
  }
}

/** Hands a body the front lane read, and did not answer, to Fastify as if it were unread. */
export function replayToFastify(request: IncomingMessage, raw: Buffer): void {
  (request as Replayable)[REPLAY] = raw;
}

/** Whether the front lane read this request's body (and so already tried its hot paths). */
export function readInFront(request: IncomingMessage): boolean {
  return (request as Replayable)[REPLAY] !== undefined;
}

/** Fastify's side of the replay: the body comes from the kept bytes, not the spent stream. */
export function installReplay(fastify: FastifyInstance): void {
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const raw = (request.raw as Replayable)[REPLAY];
    done(null, raw === undefined ? payload : Readable.from([raw], { objectMode: false }));
  });
}
