import { Logger } from '@nestjs/common';
import type { CatalogStamp } from './cache/l2-catalogs';
import { databaseUnavailable } from './catalog-completion';

/**
 * When may an instance answer from the catalog it holds without asking Postgres? While its
 * LISTEN connection is up, always (a change would have been announced). While it is down,
 * only for `staleAfterMs` after the version was last read; then the version is read again.
 */
export class CatalogFreshness {
  listening = false;

  constructor(private readonly staleAfterMs: number) {}

  trusted(checkedAt: number): boolean {
    return this.listening || Date.now() - checkedAt < this.staleAfterMs;
  }
}

const logger = new Logger('CatalogStore');

/**
 * The tenant's stamp in Postgres; 'stale' when Postgres is unreachable and a catalog is held
 * (the last one built here still answers lists: `onStale` counts it); else DATABASE_UNAVAILABLE.
 */
export async function stampOrStale(
  tenantId: string,
  loader: { stamp(tenantId: string): Promise<CatalogStamp | undefined> },
  held: boolean,
  onStale: () => void,
): Promise<CatalogStamp | undefined | 'stale'> {
  try {
    return await loader.stamp(tenantId);
  } catch (err) {
    if (held) {
      onStale();
      return 'stale';
    }
    logger.warn(
      `catalog version of ${tenantId} unreadable: ${err instanceof Error ? err.message : String(err)}`,
    );
    throw databaseUnavailable();
  }
}
