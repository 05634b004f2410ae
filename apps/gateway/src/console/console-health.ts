import type { CallBucket, Metrics } from '@app/registry';
import type { ConsoleCatalogEntry } from './console-types';

export interface TenantHealth {
  tenant: string;
  catalog_version: number;
  reports: { total: number; served: number; not_served: number };
  calls: CallBucket[];
  cache: {
    list_requests: { l1: number; l2: number; build: number };
    list_hit_rate: number | null;
    l2: { hits: number; misses: number; errors: number; hit_rate: number | null };
    catalog_builds: { postgres: number; redis: number; refresh: number };
    listener_up: boolean;
  };
}

/** The tenant's figures; cache figures are this instance's metrics, across tenants. */
export function tenantHealth(
  metrics: Metrics,
  tenant: { id: string; version: number; reports: ConsoleCatalogEntry[]; calls: CallBucket[] },
  listenerUp: boolean,
): TenantHealth {
  const m = (name: string, labels: Record<string, string> = {}) => metrics.value(name, labels);
  const lists = {
    // the hot paths count their answers here too (CatalogService.cachedListBody)
    l1: m('gateway_list_requests_total', { level: 'l1' }),
    l2: m('gateway_list_requests_total', { level: 'l2' }),
    build: m('gateway_list_requests_total', { level: 'build' }),
  };
  const listTotal = lists.l1 + lists.l2 + lists.build;
  const l2 = {
    hits: m('gateway_l2_hits_total'),
    misses: m('gateway_l2_misses_total'),
    errors: m('gateway_l2_errors_total'),
  };
  const { reports } = tenant;
  const served = reports.filter((r) => r.served).length;
  return {
    tenant: tenant.id,
    catalog_version: tenant.version,
    reports: { total: reports.length, served, not_served: reports.length - served },
    calls: tenant.calls,
    cache: {
      list_requests: lists,
      list_hit_rate: listTotal === 0 ? null : (lists.l1 + lists.l2) / listTotal,
      l2: { ...l2, hit_rate: l2.hits + l2.misses === 0 ? null : l2.hits / (l2.hits + l2.misses) },
      catalog_builds: {
        postgres: m('gateway_catalog_builds_total', { source: 'postgres' }),
        redis: m('gateway_catalog_builds_total', { source: 'redis' }),
        refresh: m('gateway_catalog_builds_total', { source: 'refresh' }),
      },
      listener_up: listenerUp,
    },
  };
}
