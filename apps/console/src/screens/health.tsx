import { useEffect } from 'preact/hooks';
import { api } from '../api';
import type { Identity } from '../api';
import { count, ErrorNote, useLoad } from './common';

interface Health {
  tenant: string;
  catalog_version: number;
  reports: { total: number; served: number; not_served: number };
  calls: Array<{ minute: number; calls: number; errors: number }>;
  cache: {
    list_requests: { l1: number; l2: number; build: number };
    list_hit_rate: number | null;
    l2: { hits: number; misses: number; errors: number; hit_rate: number | null };
    catalog_builds: { postgres: number; redis: number; refresh: number };
    listener_up: boolean;
  };
}

const pct = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(1)} %`);

export function HealthScreen({ identity }: { identity: Identity }) {
  const {
    value: h,
    error,
    reload,
  } = useLoad(() => api<Health>(identity, '/v1/admin/console/health'), [identity.token]);
  useEffect(() => {
    const t = setInterval(reload, 10_000);
    return () => clearInterval(t);
  }, [reload]);
  const calls = h?.calls.reduce((a, b) => a + b.calls, 0) ?? 0;
  const errors = h?.calls.reduce((a, b) => a + b.errors, 0) ?? 0;
  const peak = Math.max(1, ...(h?.calls.map((b) => b.calls) ?? [1]));
  return (
    <section aria-labelledby="health-title">
      <div class="title-row">
        <h1 id="health-title">Health at a glance</h1>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={error} />
      {h && (
        <div class="cards" data-testid="health">
          <div class="card">
            <h2>Tenant {h.tenant}</h2>
            <p class="big">v{h.catalog_version}</p>
            <p>catalog version</p>
            <p>
              {h.reports.served} of {h.reports.total} reports served
              {h.reports.not_served ? `, ${h.reports.not_served} not served` : ''}
            </p>
          </div>
          <div class="card">
            <h2>Tool calls, last {h.calls.length} minutes</h2>
            <p class="big">{calls}</p>
            <p>
              {calls === 1 ? 'call' : 'calls'},{' '}
              <strong class={errors ? 'bad-text' : ''}>{count(errors, 'error')}</strong>
            </p>
            <div class="spark" role="group" aria-label="calls per minute">
              {h.calls.map((b) => (
                <meter
                  min={0}
                  max={peak}
                  value={b.calls}
                  aria-label={`${new Date(b.minute).toLocaleTimeString()}: ${count(b.calls, 'call')}, ${count(b.errors, 'error')}`}
                  title={`${new Date(b.minute).toLocaleTimeString()}: ${count(b.calls, 'call')}, ${count(b.errors, 'error')}`}
                />
              ))}
            </div>
            <div class="spark-axis" aria-hidden="true">
              <span>{h.calls.length} min ago</span>
              <span>peak {peak}/min</span>
              <span>now</span>
            </div>
          </div>
          <div class="card">
            <h2>Caches (this instance, all tenants)</h2>
            <p class="big">{pct(h.cache.list_hit_rate)}</p>
            <p>
              {h.cache.list_hit_rate === null
                ? 'no tool lists served yet'
                : 'tool lists answered from cache'}
            </p>
            <p>
              L1 {h.cache.list_requests.l1} · L2 {h.cache.list_requests.l2} · built{' '}
              {h.cache.list_requests.build}
            </p>
            <p>
              Redis (L2):{' '}
              {h.cache.l2.hit_rate === null
                ? 'no lookups yet'
                : `${pct(h.cache.l2.hit_rate)} hit rate (${count(h.cache.l2.hits, 'hit')}, ${count(h.cache.l2.misses, 'miss', 'misses')}, ${count(h.cache.l2.errors, 'error')})`}
            </p>
            <p>
              catalog builds: {h.cache.catalog_builds.postgres} from Postgres,{' '}
              {h.cache.catalog_builds.redis} from Redis, {h.cache.catalog_builds.refresh} refreshes
              · change listener {h.cache.listener_up ? 'up' : 'down'}
            </p>
          </div>
        </div>
      )}
    </section>
  );
}
