import type { GuardedReadResult, NamedStatement } from '@app/db';
import type { SourceScope } from '../catalog/model/catalog-records';
import { DatasourceUnavailableError } from '../datasources/run/datasource-unavailable';
import type { DatasourcePools } from '../datasources/run/source-pools';
import type { RegistryOptions } from '../tokens';
import { activeTraceId, withSpan } from '../tracing';
import { sessionLimits, sourceSessionSetup } from './session-setup';

/** One page's read on a tenant's source, as the executor asks for it. */
export interface SourceRead {
  text: string;
  values: unknown[];
  maxBytes: number;
  timeoutMs: number;
  statement: NamedStatement;
  signal?: AbortSignal;
  claims?: string;
}

/**
 * A report on the tenant's own server (issues #30, #42): the same guarded read, in its source's
 * pool, with the registered read-only login. On Postgres the session setup pins the search_path
 * on the source's schema and sets the bounds (and the caller's claims on a `pass_identity`
 * source); on a MySQL-protocol source its pool sets the statement's time bound and runs the
 * statement, prepared, in a READ ONLY transaction.
 */
export function readOnSource(
  sources: DatasourcePools | null,
  options: RegistryOptions,
  tenantId: string,
  name: string,
  source: SourceScope,
  read: SourceRead,
): Promise<GuardedReadResult> {
  if (!sources) throw new DatasourceUnavailableError(name, 'data sources are not set up here');
  const mysql = source.engine === 'mysql';
  const setup = mysql
    ? []
    : sourceSessionSetup(
        source.schema,
        { ...sessionLimits(options), statementTimeoutMs: read.timeoutMs },
        { traceId: activeTraceId(), customPlans: true, claims: read.claims },
      );
  const attributes = {
    'db.system': mysql ? 'mysql' : 'postgresql',
    'gateway.tenant': tenantId,
    'gateway.datasource': name,
  };
  return withSpan('sql', attributes, () =>
    sources.read(tenantId, name, source.revision, {
      setup,
      text: read.text,
      values: read.values,
      maxBytes: read.maxBytes,
      // the client gives up a second after the server should have
      timeoutMs: read.timeoutMs + 1000,
      ...(mysql ? { statementTimeoutMs: read.timeoutMs } : { statement: read.statement }),
      signal: read.signal,
    }),
  );
}
