import type { DatabaseHandle } from '@app/db';
import { BuiltinTools } from './builtin-tools';
import { CatalogStore } from './catalog-store';
import { CatalogService } from './catalog.service';
import { Metrics } from './metrics';
import { SharedCache } from './shared-cache';
import { DEFAULT_REGISTRY_OPTIONS } from './tokens';
import type { RegistryOptions } from './tokens';

/**
 * The registry wired by hand, without Nest and without Redis, for integration tests and
 * tools that use the catalog directly.
 */
export function standaloneCatalog(
  database: DatabaseHandle,
  options: Partial<RegistryOptions> = {},
): CatalogService {
  const metrics = new Metrics();
  const shared = new SharedCache(metrics, null);
  const store = new CatalogStore(
    database,
    { ...DEFAULT_REGISTRY_OPTIONS, ...options },
    shared,
    metrics,
  );
  return new CatalogService(store, new BuiltinTools(), shared, metrics, {
    ...DEFAULT_REGISTRY_OPTIONS,
    ...options,
  });
}
