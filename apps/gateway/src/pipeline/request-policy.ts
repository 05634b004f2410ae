import type { IncomingMessage, ServerResponse } from 'node:http';
import { DiscoveryService } from '@nestjs/core';
import type { Logger } from 'pino';
import type { RequestContext } from './request-context';

/**
 * A cross-cutting rule applied by the request pipeline to every request, whether a fast lane
 * or a Nest route answers it: it runs in the HTTP server's handler, before either.
 * `onRequest` may answer the request itself (a refusal) and return true; then nothing else
 * runs but `onEnd`. `onEnd` runs when the response closes, after the access log line.
 * Both run synchronously on the hot path: keep them cheap and free of I/O waits.
 */
export interface RequestPolicy {
  onRequest?(ctx: RequestContext, request: IncomingMessage, response: ServerResponse): boolean;
  onEnd?(ctx: RequestContext, response: ServerResponse): void;
}

/**
 * Marks a provider as a request policy: the pipeline applies every provider so marked, in
 * any module (Nest's multi-provider pattern through DiscoveryService).
 */
export const AsRequestPolicy = DiscoveryService.createDecorator<void>();

/** The request policies among the app's providers. */
export function discoverPolicies(discovery: DiscoveryService): RequestPolicy[] {
  return discovery
    .getProviders({ metadataKey: AsRequestPolicy.KEY })
    .map((wrapper) => wrapper.instance as RequestPolicy)
    .filter((policy) => policy !== undefined && policy !== null);
}

/** The policies of one pipeline; one that throws is logged and skipped (it never 500s). */
export class Policies {
  readonly list: RequestPolicy[] = [];

  constructor(private readonly log: Logger) {}

  /** True when a policy answered the request (nothing else runs then). */
  answered(ctx: RequestContext, request: IncomingMessage, response: ServerResponse): boolean {
    for (const policy of this.list) {
      try {
        if (policy.onRequest?.(ctx, request, response)) return true;
      } catch (err) {
        this.log.error({ err }, 'a request policy failed; the request goes on without it');
      }
    }
    return false;
  }

  ended(ctx: RequestContext, response: ServerResponse): void {
    for (const policy of this.list) {
      try {
        policy.onEnd?.(ctx, response);
      } catch (err) {
        this.log.error({ err }, 'a request policy failed at the end of a request');
      }
    }
  }
}
