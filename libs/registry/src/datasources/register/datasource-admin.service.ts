import type { TemplateProblem } from '@app/templates';
import { Injectable } from '@nestjs/common';
import type { Principal } from '../../access/principal';
import { CatalogStore } from '../../catalog/catalog-store';
import { RegistryError } from '../../errors';
import { DatasourceRepository } from '../datasource.repository';
import type { StoredDatasource } from '../datasource.repository';
import { DATASOURCE_NAME, parseDatasourceDocument } from './datasource-document';
import type { DatasourceDocument } from './datasource-document';
import { shownUrl } from '../datasource-options';
import type { SourceConnection } from '../datasource-options';
import { loginProblems } from './login-check';
import { DatasourcePools } from '../run/source-pools';
import type { EndpointHealth } from '../run/running-source';
import type { SourceEngine } from '../boundary/source-address';

/**
 * How long a registration waits for each server: a fixed time for every failure to reach one or
 * log in, so that its answer tells nothing of what listens where (issue #37).
 */
const REGISTRATION_TIMEOUT_MS = 3000;

/** A data source as the admin API shows it: no password, ever. */
export interface DatasourceView {
  name: string;
  url: string;
  replicas: string[];
  schema: string;
  tables: string[];
  pool_max: number;
  statement_timeout_ms: number | null;
  /** sessions carry the caller's identity as request.jwt.claims (issue #42) */
  pass_identity: boolean;
  /** the protocol the source speaks: postgres, or mysql (MySQL, MariaDB, ...; issue #42) */
  engine: SourceEngine;
  /** the CA the source's TLS trusts (public, not a secret): a PUT that edits the source sends it back */
  ca_pem: string | null;
  updated_at: string;
  /** false after a key change until the source is PUT again (docs/operations.md) */
  sealed_with_current_key: boolean;
  health: {
    reachable: boolean;
    latency_ms: number | null;
    server_version: string | null;
    last_error: string | null;
    endpoints: EndpointHealth[];
  };
}

/**
 * Registration of tenant data sources (issue #30), for admins of the caller's tenant: a source
 * is saved only once its login has been seen to be read-only over everything it reaches, and
 * its connection only sealed.
 */
@Injectable()
export class DatasourceAdminService {
  constructor(
    private readonly repository: DatasourceRepository,
    private readonly pools: DatasourcePools,
    private readonly store: CatalogStore,
  ) {}

  async list(admin: Principal): Promise<DatasourceView[]> {
    await this.requireAdmin(admin);
    const sources = await this.repository.list(admin.tenantId);
    return Promise.all(sources.map((s) => this.view(admin.tenantId, s)));
  }

  async get(admin: Principal, name: string): Promise<DatasourceView> {
    await this.requireAdmin(admin);
    return this.view(admin.tenantId, await this.find(admin.tenantId, name));
  }

  async put(
    admin: Principal,
    name: string,
    input: unknown,
  ): Promise<DatasourceView & { created: boolean }> {
    await this.requireAdmin(admin);
    if (!DATASOURCE_NAME.test(name) || name.length > 63)
      throw invalid([
        { rule: 'document', message: 'a data source name matches ^[a-z][a-z0-9_]*$' },
      ]);
    if (!this.pools.box.enabled)
      throw invalid([
        {
          rule: 'key',
          message:
            'this gateway has no data source key (DATASOURCE_KEY or DATASOURCE_KEY_FILE), so it cannot store a password',
        },
      ]);
    const parsed = parseDatasourceDocument(input, this.pools.bounds);
    if (!parsed.ok) throw invalid(parsed.problems);
    const doc: DatasourceDocument = parsed.source.document;
    // every failure to reach or log in is answered when this timeout is over (issue #37)
    const problems = await loginProblems(
      parsed.source,
      this.pools.connector,
      REGISTRATION_TIMEOUT_MS,
    );
    if (problems.length > 0) throw invalid(problems);
    const replicas = doc.replicas ?? [];
    const connection: SourceConnection = { url: doc.url, replicas, ca_pem: doc.ca_pem };
    const [primary, ...others] = parsed.source.endpoints;
    const created = await this.repository.upsert(admin.tenantId, {
      name,
      sealedConnection: this.pools.box.seal(JSON.stringify(connection)),
      shown: { url: shownUrl(primary), replicas: others.map((e) => shownUrl(e)) },
      schema: doc.schema,
      tables: doc.tables,
      poolMax: doc.pool_max ?? Math.min(5, this.pools.bounds.maxPool),
      statementTimeoutMs: doc.statement_timeout_ms ?? null,
      passIdentity: doc.pass_identity === true,
      engine: parsed.source.engine,
    });
    await this.pools.forget(admin.tenantId, name);
    this.store.invalidate(admin.tenantId);
    return { created, ...(await this.get(admin, name)) };
  }

  async delete(admin: Principal, name: string): Promise<void> {
    await this.requireAdmin(admin);
    const outcome = await this.repository.delete(admin.tenantId, name);
    if (outcome === 'missing') throw notFound(name);
    if (Array.isArray(outcome))
      throw new RegistryError(
        'DATASOURCE_IN_USE',
        `the data source "${name}" is used by ${outcome.length === 20 ? 'at least 20 reports' : `report(s) ${outcome.join(', ')}`}: point them elsewhere or delete them first`,
        { reports: outcome },
      );
    await this.pools.forget(admin.tenantId, name);
    this.store.invalidate(admin.tenantId);
  }

  private async find(tenantId: string, name: string): Promise<StoredDatasource> {
    const stored = await this.repository.find(tenantId, name);
    if (!stored) throw notFound(name);
    return stored;
  }

  private async view(tenantId: string, s: StoredDatasource): Promise<DatasourceView> {
    const endpoints = await this.pools
      .health(tenantId, s.name, s.updatedAt)
      .catch((err: Error): EndpointHealth[] => [
        {
          endpoint: 'primary',
          reachable: false,
          latency_ms: null,
          server_version: null,
          last_error: 'reason' in err ? String(err.reason) : 'cannot be checked',
          circuit: 'closed',
          pool: { open: false, in_use: 0, idle: 0, max: s.poolMax },
        },
      ]);
    const primary = endpoints[0];
    return {
      name: s.name,
      url: s.shown.url,
      replicas: s.shown.replicas,
      schema: s.schema,
      tables: s.tables,
      pool_max: s.poolMax,
      statement_timeout_ms: s.statementTimeoutMs,
      pass_identity: s.passIdentity,
      engine: s.engine,
      ca_pem: this.caOf(s),
      updated_at: s.updatedAt,
      sealed_with_current_key: this.pools.box.isCurrent(s.sealedConnection),
      health: {
        reachable: endpoints.some((e) => e.reachable),
        latency_ms: primary.latency_ms,
        server_version: primary.server_version,
        last_error: endpoints.find((e) => e.last_error)?.last_error ?? null,
        endpoints,
      },
    };
  }

  /** The CA in the sealed connection; null without one, or sealed with a key this instance lacks. */
  private caOf(s: StoredDatasource): string | null {
    try {
      return (
        (JSON.parse(this.pools.box.open(s.sealedConnection)) as SourceConnection).ca_pem ?? null
      );
    } catch {
      return null;
    }
  }

  /** The caller must be an admin of their tenant (read fresh from Postgres). */
  private async requireAdmin(admin: Principal): Promise<void> {
    const catalog = await this.store.catalog(admin.tenantId, { verify: true });
    if (!catalog.access.isAdmin(catalog.access.effectiveRoles(admin)))
      throw new RegistryError('FORBIDDEN', 'the admin API needs an admin role of your tenant');
  }
}

function notFound(name: string): RegistryError {
  return new RegistryError('DATASOURCE_NOT_FOUND', `no data source "${name}" in your tenant`);
}

function invalid(problems: TemplateProblem[]): RegistryError {
  return new RegistryError(
    'INVALID_DATASOURCE',
    `the data source was not saved: ${problems.map((p) => p.message).join('; ')}`,
    { problems },
  );
}
