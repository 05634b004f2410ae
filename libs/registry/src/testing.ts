import type { DatabaseHandle } from '@app/db';
import { BuiltinTools } from './listing/builtin-tools';
import { CatalogLoader } from './catalog/load/catalog-loader';
import { CatalogStore } from './catalog/catalog-store';
import { CatalogChangeFeed } from './catalog/load/change-feed';
import { ReportAdmission } from './catalog/judge/report-admission';
import { AdmissionVerdictRepository } from './catalog/judge/admission-verdict.repository';
import { CatalogRepository } from './catalog/load/catalog.repository';
import { CatalogService } from './listing/catalog.service';
import { Metrics } from './metrics';
import { SharedCache } from './catalog/cache/shared-cache';
import { DEFAULT_REGISTRY_OPTIONS } from './tokens';
import type { RegistryOptions } from './tokens';

/**
 * The registry wired by hand, without Nest and without Redis, for integration tests and
 * tools that use the catalog directly. Not part of the production barrel: import it as
 * `@app/registry/testing`.
 */
export function standaloneCatalog(
  database: DatabaseHandle,
  options: Partial<RegistryOptions> = {},
): CatalogService {
  const settings = { ...DEFAULT_REGISTRY_OPTIONS, ...options };
  const metrics = new Metrics();
  const shared = new SharedCache(metrics, null);
  const loader = new CatalogLoader(
    new CatalogRepository(database),
    shared,
    new ReportAdmission(metrics, null, new AdmissionVerdictRepository(database)),
    metrics,
    settings,
  );
  const feed = new CatalogChangeFeed(database, metrics, settings);
  const store = new CatalogStore(loader, feed, metrics);
  return new CatalogService(store, new BuiltinTools(), shared, metrics, settings);
}

/** The catalog's units, for tools that measure them one by one (bench/heap-per-report.ts). */
export { CatalogLoader, ReportAdmission };
