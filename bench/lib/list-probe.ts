import type { GatewayProcess } from './gateway';
import { grown, readMetrics } from './metrics';

export type ListLevel = 'l1' | 'l2' | 'build';
/** where a catalog was (re)built from: Redis (L2), Postgres, or an incremental refresh */
export type CatalogSource = 'redis' | 'postgres' | 'refresh';

export interface ListProbe {
  ms: number;
  body: string;
  /** which cache level answered, from the gateway's /metrics counters */
  level: ListLevel | undefined;
  /** where the catalog was (re)built from, when it was */
  catalogFrom: CatalogSource | undefined;
}

const LEVELS: ListLevel[] = ['l1', 'l2', 'build'];
const SOURCES: CatalogSource[] = ['redis', 'postgres', 'refresh'];

/** One timed list request; /metrics is read before and after (outside the timing). */
export async function probeList(
  gateway: GatewayProcess,
  path: string,
  headers: Record<string, string>,
): Promise<ListProbe> {
  const before = await readMetrics(gateway.client);
  const res = await gateway.client.ok(path, { headers });
  const diff = grown(before, await readMetrics(gateway.client));
  return {
    ms: res.ms,
    body: res.body,
    level: LEVELS.find((l) => diff.get(`gateway_list_requests_total{level="${l}"}`) === 1),
    catalogFrom: SOURCES.find((s) => diff.get(`gateway_catalog_builds_total{source="${s}"}`) === 1),
  };
}

/** probeList, failing unless the expected level (and catalog source) answered. */
export async function timedList(
  gateway: GatewayProcess,
  path: string,
  headers: Record<string, string>,
  expect: { level: ListLevel; catalogFrom?: CatalogSource },
): Promise<ListProbe> {
  const probe = await probeList(gateway, path, headers);
  if (
    probe.level !== expect.level ||
    (expect.catalogFrom && probe.catalogFrom !== expect.catalogFrom)
  )
    throw new Error(
      `expected a list from ${expect.level}${expect.catalogFrom ? ` (catalog from ${expect.catalogFrom})` : ''} on ${gateway.name}; got ${probe.level ?? '?'} (catalog from ${probe.catalogFrom ?? 'memory'})`,
    );
  return probe;
}

/**
 * The first list after a catalog change: until the NOTIFY has reached the gateway the
 * list still comes from L1, so ask again (10 ms apart) until a list built on a rebuilt
 * catalog (from Postgres, or refreshed from it) answers; that request is the sample.
 */
export async function listAfterChange(
  gateway: GatewayProcess,
  path: string,
  headers: Record<string, string>,
): Promise<ListProbe> {
  for (let attempt = 0; attempt < 200; attempt++) {
    await new Promise((r) => setTimeout(r, 10));
    const probe = await probeList(gateway, path, headers);
    if (probe.level === 'l1') continue;
    if (
      probe.level === 'build' &&
      (probe.catalogFrom === 'postgres' || probe.catalogFrom === 'refresh')
    )
      return probe;
    throw new Error(
      `expected a rebuild from Postgres on ${gateway.name}; got ${probe.level ?? '?'} (catalog from ${probe.catalogFrom ?? 'memory'})`,
    );
  }
  throw new Error(`the catalog change never reached ${gateway.name}`);
}
