import type { ReadPool } from '@app/db';
import type { Metrics } from '../../metrics';
import type { CircuitBreaker } from './circuit-breaker';
import type { StoredDatasource } from '../datasource.repository';
import type { SourceConnection } from '../datasource-options';
import { DatasourceUnavailableError } from './datasource-unavailable';
import { parseSourceUrl } from '../boundary/source-address';
import type { BreakerState } from './circuit-breaker';
import type { SourceEndpoint } from '../boundary/source-address';

/** One server of a source: the primary or a replica, its lazily opened pool and its breaker. */
export interface Endpoint {
  label: string;
  endpoint: SourceEndpoint;
  pool: ReadPool | undefined;
  breaker: CircuitBreaker;
  lastUsed: number;
}

/** A source as this instance runs it, at one revision of its registration. */
export interface RunningSource {
  tenantId: string;
  name: string;
  revision: string;
  poolMax: number;
  caPem: string | undefined;
  /** replicas first (taken round-robin), the primary last */
  replicas: Endpoint[];
  primary: Endpoint;
  next: number;
}

export interface EndpointHealth {
  endpoint: string;
  reachable: boolean;
  latency_ms: number | null;
  server_version: string | null;
  last_error: string | null;
  circuit: BreakerState;
  pool: { open: boolean; in_use: number; idle: number; max: number };
}

/** The data source metrics, read from the running sources when scraped. */
export function describeSourceMetrics(
  metrics: Metrics,
  sources: () => Iterable<RunningSource>,
): void {
  metrics.describe('gateway_datasource_calls_total', 'report calls on tenant data sources');
  metrics.describe(
    'gateway_datasource_call_seconds',
    'report calls on tenant data sources: time to rows or failure',
  );
  metrics.gaugeCollected(
    'gateway_datasource_pool_connections',
    'connections of the tenant data source pools of this instance, by state',
    (set) => {
      for (const source of sources())
        for (const e of [...source.replicas, source.primary]) {
          const stats = e.pool?.stats();
          const labels = { tenant: source.tenantId, source: source.name, endpoint: e.label };
          set(stats ? stats.total - stats.idle : 0, { ...labels, state: 'in_use' });
          set(stats?.idle ?? 0, { ...labels, state: 'idle' });
          set(stats?.waiting ?? 0, { ...labels, state: 'waiting' });
        }
    },
    ['tenant', 'source', 'endpoint', 'state'],
  );
  metrics.gaugeCollected(
    'gateway_datasource_breaker_open',
    '1 while a tenant data source endpoint has its circuit breaker open',
    (set) => {
      for (const source of sources())
        for (const e of [...source.replicas, source.primary])
          set(e.breaker.state === 'closed' ? 0 : 1, {
            tenant: source.tenantId,
            source: source.name,
            endpoint: e.label,
          });
    },
    ['tenant', 'source', 'endpoint'],
  );
}

/**
 * A registered source as this instance runs it: its sealed URLs parsed again by today's rules
 * (one sealed before issue #37 may hold what is no longer accepted: refused, never used).
 */
export function runningSource(
  tenantId: string,
  stored: StoredDatasource,
  connection: SourceConnection,
  breaker: () => CircuitBreaker,
): RunningSource {
  const endpoint = (label: string, url: string): Endpoint => {
    const parsed = parseSourceUrl(url);
    if (!parsed.ok)
      throw new DatasourceUnavailableError(
        stored.name,
        'its connection is no longer accepted (register it again)',
      );
    return { label, endpoint: parsed.endpoint, pool: undefined, breaker: breaker(), lastUsed: 0 };
  };
  return {
    tenantId,
    name: stored.name,
    revision: stored.updatedAt,
    poolMax: stored.poolMax,
    caPem: connection.ca_pem,
    primary: endpoint('primary', connection.url),
    replicas: connection.replicas.map((url, i) => endpoint(`replica${i + 1}`, url)),
    next: 0,
  };
}
