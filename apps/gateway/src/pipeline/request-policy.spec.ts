import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { RequestContext } from './request-context';
import { Policies } from './request-policy';

const ctx = { traceId: 't', route: '/v1/tools' } as RequestContext;
const request = {} as IncomingMessage;
const response = {} as ServerResponse;

function logger() {
  const errors: string[] = [];
  const log = { error: (_: unknown, msg: string) => errors.push(msg) } as unknown as Logger;
  return { log, errors };
}

describe('Policies (the request policies of the pipeline)', () => {
  it('stops at the first policy that answers the request', () => {
    const { log } = logger();
    const policies = new Policies(log);
    const seen: string[] = [];
    policies.list.push(
      { onRequest: () => (seen.push('first'), false) },
      { onRequest: () => (seen.push('refuses'), true) },
      { onRequest: () => (seen.push('never'), false) },
    );
    expect(policies.answered(ctx, request, response)).toBe(true);
    expect(seen).toEqual(['first', 'refuses']);
  });

  it('logs and skips a policy that throws: the request goes on, the others still run', () => {
    const { log, errors } = logger();
    const policies = new Policies(log);
    const ended: string[] = [];
    policies.list.push(
      {
        onRequest: () => {
          throw new Error('broken');
        },
        onEnd: () => {
          throw new Error('broken');
        },
      },
      { onEnd: (c) => ended.push(c.traceId) },
    );
    expect(policies.answered(ctx, request, response)).toBe(false);
    policies.ended(ctx, response);
    expect(ended).toEqual(['t']);
    expect(errors).toEqual([
      'a request policy failed; the request goes on without it',
      'a request policy failed at the end of a request',
    ]);
  });
});
