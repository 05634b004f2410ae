import { openReadPool } from '@app/db';
import type { GuardedReadRequest, GuardedReadResult, ReadPool } from '@app/db';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type { Principal } from '../../access/principal';
import { Metrics } from '../../metrics';
import { REGISTRY_OPTIONS } from '../../tokens';
import type { RegistryOptions } from '../../tokens';
import { CircuitBreaker } from './circuit-breaker';
import { DatasourceRepository } from '../datasource.repository';
import { DEFAULT_DATASOURCE_OPTIONS } from '../datasource-options';
import type { DatasourceOptions, SourceConnection } from '../datasource-options';
import { DatasourceUnavailableError } from './datasource-unavailable';
import { SecretBox } from '../boundary/secret-box';
import { ConnectionShares } from '../boundary/connection-shares';
import { describeSourceMetrics, runningSource } from './running-source';
import { identityClaims } from './source-identity';
import type { Endpoint, EndpointHealth, RunningSource } from './running-source';
import { SourceConnector } from '../boundary/source-connect';
import { EndpointCalls } from './endpoint-calls';
import { openMysqlReadPool } from '../mysql/mysql-read-pool';

/**
 * One bounded pool per source endpoint per instance (issue #30): opened on the first call,
 * closed when unused for `idleCloseMs`, all of them within one connection budget. A source that
 * is down or slow fails only its own calls, at once while its breaker is open; replicas take the
 * calls round-robin, failing over to the others and then to the primary.
 */
@Injectable()
export class DatasourcePools implements OnModuleDestroy {
  private readonly logger = new Logger('DatasourcePools');
  private readonly options: DatasourceOptions;
  readonly box: SecretBox;
  private readonly running = new Map<string, RunningSource>();
  private readonly loading = new Map<string, Promise<RunningSource>>();
  /** connections counted against the budget and each tenant's share: the max of every open pool */
  private readonly shares: ConnectionShares;
  private readonly sweeper: NodeJS.Timeout;
  readonly connector: SourceConnector;
  private readonly calls: EndpointCalls;

  constructor(
    private readonly repository: DatasourceRepository,
    private readonly metrics: Metrics,
    @Inject(REGISTRY_OPTIONS) registryOptions: RegistryOptions,
  ) {
    this.options = { ...DEFAULT_DATASOURCE_OPTIONS, ...registryOptions.datasources };
    this.box = new SecretBox(this.options.key, this.options.previousKeys);
    this.shares = new ConnectionShares(
      this.options.connectionBudget,
      this.options.tenantConnections,
    );
    this.connector = new SourceConnector({
      networks: this.options.networks,
      connectTimeoutMs: this.options.connectTimeoutMs,
      ownServer: () => this.repository.ownServer(),
    });
    this.sweeper = setInterval(
      () => this.closeIdle(),
      Math.max(1000, Math.min(this.options.idleCloseMs, 30_000)),
    );
    this.sweeper.unref();
    describeSourceMetrics(metrics, () => this.running.values());
    this.calls = new EndpointCalls(this.options.breakerCooldownMs, this.logger, (source, e) =>
      this.poolOf(source, e),
    );
  }

  get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs;
  }

  /** The caller's identity as this instance's `pass_identity` sources are told it (issue #42). */
  claimsOf(principal: Principal): string {
    return identityClaims(principal, this.options.identityClaims);
  }

  /** The operator's bounds on a source's document (DATASOURCE_MAX_*). */
  get bounds(): { maxPool: number; maxStatementTimeoutMs: number } {
    return {
      maxPool: this.options.maxPool,
      maxStatementTimeoutMs: this.options.maxStatementTimeoutMs,
    };
  }

  /** the connection budget in use (the max of every open pool) */
  get budgetInUse(): number {
    return this.shares.inUse;
  }

  /**
   * A guarded read on the source: replicas round-robin, then the primary. A connection failure
   * counts against that endpoint's breaker and the next endpoint is tried (a read can be run
   * again); any other error (the query's own) is the answer.
   */
  async read(
    tenantId: string,
    name: string,
    revision: string,
    request: GuardedReadRequest,
  ): Promise<GuardedReadResult> {
    const started = performance.now();
    const labels = { tenant: tenantId, source: name };
    try {
      const source = await this.source(tenantId, name, revision);
      const result = await this.calls.onSomeEndpoint(source, (pool) => pool.guardedRead(request));
      this.metrics.inc('gateway_datasource_calls_total', { ...labels, outcome: 'ok' });
      return result;
    } catch (err) {
      const outcome = err instanceof DatasourceUnavailableError ? 'unavailable' : 'error';
      this.metrics.inc('gateway_datasource_calls_total', { ...labels, outcome });
      throw err;
    } finally {
      this.metrics.observe(
        'gateway_datasource_call_seconds',
        labels,
        (performance.now() - started) / 1000,
      );
    }
  }

  /** Health of every endpoint of the source: a probe through its pool, unless its breaker is open. */
  async health(tenantId: string, name: string, revision: string): Promise<EndpointHealth[]> {
    const source = await this.source(tenantId, name, revision);
    return Promise.all(
      [source.primary, ...source.replicas].map((e) => this.calls.probe(source, e)),
    );
  }

  /** Closes the source's pools (deleted, or replaced by a new registration). */
  async forget(tenantId: string, name: string): Promise<void> {
    const key = `${tenantId}/${name}`;
    const source = this.running.get(key);
    this.running.delete(key);
    if (source) await this.closeAll(source);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    const sources = [...this.running.values()];
    this.running.clear();
    await Promise.all(sources.map((s) => this.closeAll(s)));
  }

  /**
   * The endpoint's pool, opened now if need be within the tenant's share and the instance's
   * budget: idle pools are closed first to make room; a tenant whose share is taken waits for
   * its own calls, never another tenant's.
   */
  private poolOf(source: RunningSource, e: Endpoint): ReadPool {
    if (e.pool) return e.pool;
    const size = Math.min(source.poolMax, this.options.maxPool, this.options.tenantConnections);
    if (this.shares.refusal(source.tenantId, size) !== undefined) this.closeIdle(0);
    const refusal = this.shares.refusal(source.tenantId, size);
    if (refusal !== undefined) throw new DatasourceUnavailableError(source.name, refusal);
    this.shares.reserve(source.tenantId, size);
    const options = {
      max: size,
      connectTimeoutMs: this.options.connectTimeoutMs,
      idleTimeoutMs: this.options.idleCloseMs,
      applicationName: `gateway-datasource ${source.name}`,
    };
    e.pool =
      e.endpoint.engine === 'mysql'
        ? openMysqlReadPool(e.endpoint, this.connector, source.caPem, options)
        : openReadPool(
            this.connector.clientConfig(e.endpoint, source.caPem, options.applicationName),
            options,
          );
    return e.pool;
  }

  /** Closes the pools unused for `idleMs` with no connection in use. */
  private closeIdle(idleMs = this.options.idleCloseMs): void {
    const now = Date.now();
    for (const source of this.running.values())
      for (const e of [...source.replicas, source.primary]) {
        if (!e.pool || now - e.lastUsed < idleMs) continue;
        const stats = e.pool.stats();
        if (stats.total - stats.idle > 0 || stats.waiting > 0) continue;
        void this.closePool(source, e);
      }
  }

  private async closePool(source: RunningSource, e: Endpoint): Promise<void> {
    const pool = e.pool;
    if (!pool) return;
    e.pool = undefined;
    this.shares.reserve(source.tenantId, -pool.stats().max);
    await pool.end();
  }

  private async closeAll(source: RunningSource): Promise<void> {
    await Promise.all([...source.replicas, source.primary].map((e) => this.closePool(source, e)));
  }

  /** The running source at this revision: loaded (and decrypted) once per revision. */
  private async source(tenantId: string, name: string, revision: string): Promise<RunningSource> {
    const key = `${tenantId}/${name}`;
    const known = this.running.get(key);
    // a catalog older than the registration read here asks for an older revision: keep this one
    if (known && known.revision >= revision) return known;
    let loading = this.loading.get(key);
    if (!loading) {
      loading = this.load(tenantId, name).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    const loaded = await loading;
    const current = this.running.get(key);
    if (current !== loaded) {
      if (current) void this.closeAll(current);
      this.running.set(key, loaded);
    }
    return loaded;
  }

  private async load(tenantId: string, name: string): Promise<RunningSource> {
    const stored = await this.repository.find(tenantId, name);
    if (!stored) throw new DatasourceUnavailableError(name, 'it is not registered');
    let connection: SourceConnection;
    try {
      connection = JSON.parse(this.box.open(stored.sealedConnection)) as SourceConnection;
    } catch (err) {
      this.logger.error(
        `data source ${tenantId}/${name} cannot be opened: ${(err as Error).message}`,
      );
      throw new DatasourceUnavailableError(name, 'its connection cannot be decrypted here');
    }
    return runningSource(
      tenantId,
      stored,
      connection,
      () => new CircuitBreaker(this.options.breakerFailures, this.options.breakerCooldownMs),
    );
  }
}
