import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, httpStatus } from '../errors/http-errors';

/**
 * The requests in flight (of which long-lived MCP notification streams) and shutdown:
 * once draining, /readyz says not ready and new requests get a 503.
 */
export class InFlight {
  count = 0;
  /** of which long-lived MCP notification streams (not waited for at shutdown) */
  streams = 0;
  draining = false;
  private idle: Array<() => void> = [];

  /** One request is over; wakes `drain` if it waits. */
  done(stream: boolean | undefined): void {
    this.count--;
    if (stream) this.streams--;
    if (this.idle.length > 0) for (const wake of this.idle.splice(0)) wake();
  }

  /**
   * Stop admitting, then wait until the requests in flight (streams aside) are done or
   * `graceMs` has passed. True when all finished.
   */
  async drain(graceMs: number): Promise<boolean> {
    this.draining = true;
    if (this.count - this.streams <= 0) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs);
      const check = () => {
        if (this.count - this.streams <= 0) {
          clearTimeout(timer);
          resolve(true);
        } else this.idle.push(check);
      };
      this.idle.push(check);
    });
  }
}

/** The answer to a request that arrives while this instance shuts down. */
export function refuseWhileDraining(request: IncomingMessage, response: ServerResponse): void {
  const readiness = request.url === '/readyz';
  const body = JSON.stringify(
    readiness
      ? { status: 'not ready', reason: 'shutting down' }
      : errorBody(
          'SHUTTING_DOWN',
          'this instance is shutting down; retry the request (another instance will answer)',
        ),
  );
  response.writeHead(httpStatus('SHUTTING_DOWN'), {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
    'retry-after': '1',
  });
  response.end(body);
}
