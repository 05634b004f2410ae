import type { ReadPool } from '@app/db';
import type { Logger } from '@nestjs/common';
import { SourceRefusedError } from '../boundary/source-connect';
import { probeMysqlServer } from '../mysql/mysql-session.repository';
import { probeServer } from '../postgres/source-server.repository';
import { connectionFailure, DatasourceUnavailableError } from './datasource-unavailable';
import type { Endpoint, EndpointHealth, RunningSource } from './running-source';

/**
 * A call on a source's endpoints (issue #30): replicas round-robin then the primary, each through
 * its circuit breaker; a connection failure counts against the endpoint and the next is tried,
 * the query's own error is the answer. The health probe goes the same way.
 */
export class EndpointCalls {
  constructor(
    private readonly cooldownMs: number,
    private readonly logger: Logger,
    private readonly poolOf: (source: RunningSource, e: Endpoint) => ReadPool,
  ) {}

  async probe(source: RunningSource, e: Endpoint): Promise<EndpointHealth> {
    const stats = e.pool?.stats();
    const base = {
      endpoint: e.label,
      pool: {
        open: e.pool !== undefined,
        in_use: stats ? stats.total - stats.idle : 0,
        idle: stats?.idle ?? 0,
        max: source.poolMax,
      },
    };
    const started = performance.now();
    try {
      const probe = e.endpoint.engine === 'mysql' ? probeMysqlServer : probeServer;
      const version = await this.onEndpoint(source, e, (pool) => pool.withSession(probe));
      return {
        ...base,
        reachable: true,
        latency_ms: Math.round((performance.now() - started) * 10) / 10,
        server_version: version,
        last_error: e.breaker.lastError ?? null,
        circuit: e.breaker.state,
      };
    } catch (err) {
      return {
        ...base,
        reachable: false,
        latency_ms: null,
        server_version: null,
        last_error:
          err instanceof DatasourceUnavailableError ? err.reason : (e.breaker.lastError ?? 'error'),
        circuit: e.breaker.state,
      };
    }
  }

  async onSomeEndpoint<T>(source: RunningSource, work: (pool: ReadPool) => Promise<T>): Promise<T> {
    const order: Endpoint[] = [];
    const n = source.replicas.length;
    for (let i = 0; i < n; i++) order.push(source.replicas[(source.next + i) % n]);
    if (n > 0) source.next = (source.next + 1) % n;
    order.push(source.primary);
    let last: DatasourceUnavailableError | undefined;
    for (const endpoint of order) {
      try {
        return await this.onEndpoint(source, endpoint, work);
      } catch (err) {
        if (!(err instanceof DatasourceUnavailableError)) throw err;
        last = err;
      }
    }
    throw last!;
  }

  /** `work` on one endpoint, through its breaker; a connection failure becomes unavailable. */
  private async onEndpoint<T>(
    source: RunningSource,
    e: Endpoint,
    work: (pool: ReadPool) => Promise<T>,
  ): Promise<T> {
    if (e.breaker.state === 'open')
      throw new DatasourceUnavailableError(source.name, 'circuit open', e.breaker.retryInMs());
    const pool = this.poolOf(source, e);
    if (!e.breaker.tryAcquire())
      throw new DatasourceUnavailableError(source.name, 'circuit open', e.breaker.retryInMs());
    e.lastUsed = Date.now();
    try {
      const result = await work(pool);
      e.breaker.succeeded();
      return result;
    } catch (err) {
      const reason = refusalReason(err) ?? connectionFailure(err);
      if (reason === undefined) {
        e.breaker.succeeded(); // the server answered: the query's own error
        throw err;
      }
      const wasOpen = e.breaker.state !== 'closed';
      e.breaker.failed(reason);
      if (!wasOpen && e.breaker.state !== 'closed')
        this.logger.warn(
          `data source ${source.tenantId}/${source.name} (${e.label}) is unavailable (${reason}): its calls fail at once for ${this.cooldownMs} ms`,
        );
      throw new DatasourceUnavailableError(source.name, reason);
    } finally {
      e.lastUsed = Date.now();
    }
  }
}

/** A connection the connector refused, in the words a call's failure gives (no address). */
function refusalReason(err: unknown): string | undefined {
  if (!(err instanceof SourceRefusedError)) return undefined;
  return err.rule === 'network'
    ? 'its address is not one this gateway connects to'
    : "it is the gateway's own database server";
}
