import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Identity } from '../api';
import { ChartImage, count, ErrorNote, useLoad } from './common';
import { UsageOverview } from './usage-overview';

interface Usage {
  tool: string;
  days: number;
  enabled: boolean;
  summary: {
    calls: number;
    errors: number;
    error_rate: number | null;
    empty: number;
    empty_rate: number | null;
    cached: number;
    cached_share: number | null;
    p50_ms: number | null;
    p95_ms: number | null;
    found_via: { listed: number; selected: number; searched: number };
  };
  daily: Array<{ day: string; calls: number; errors: number; empty: number }>;
  chart: { svg?: string; error?: string };
}

interface Catalog {
  reports: Array<{ id: string; name: string }>;
}

const rate = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(1)} %`);
const ms = (v: number | null) => (v === null ? 'n/a' : `≤ ${v} ms`);
const DAYS = [7, 14, 30, 90];

/**
 * How the tenant's report tools are used: every report at once (`#/usage`), or one in detail
 * (`#/usage/<tool>`). The gateway's own counts, never its rows.
 */
export function UsageScreen({ identity, tool }: { identity: Identity; tool?: string }) {
  const [days, setDays] = useState(14);
  const catalog = useLoad(
    () => api<Catalog>(identity, '/v1/admin/console/catalog'),
    [identity.token],
  );
  const chosen = tool ?? '';
  const usage = useLoad(
    () =>
      chosen
        ? api<Usage>(
            identity,
            `/v1/admin/console/usage?tool=${encodeURIComponent(chosen)}&days=${days}`,
          )
        : Promise.resolve(undefined),
    [identity.token, chosen, days],
  );
  const u = usage.value;
  return (
    <section aria-labelledby="usage-title">
      <div class="title-row">
        <h1 id="usage-title">Usage</h1>
        {chosen && (
          <button type="button" onClick={usage.reload}>
            Refresh
          </button>
        )}
      </div>
      <div class="actions">
        <label>
          Report
          <select
            name="tool"
            value={chosen}
            onChange={(e) => {
              const picked = (e.target as HTMLSelectElement).value;
              location.hash = picked ? `#/usage/${encodeURIComponent(picked)}` : '#/usage';
            }}
          >
            <option value="">all reports (overview)</option>
            {(catalog.value?.reports ?? []).map((r) => (
              <option value={`query_report_${r.id}`}>
                {r.id} — {r.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Days
          <select
            name="days"
            value={String(days)}
            onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}
          >
            {DAYS.map((d) => (
              <option value={String(d)}>last {d} days</option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={catalog.error ?? usage.error} />
      {!chosen && <UsageOverview identity={identity} days={days} />}
      {u && !u.enabled && (
        <p class="notice" role="status">
          Usage is not recorded on this gateway (USAGE_RETENTION_DAYS=0).
        </p>
      )}
      {chosen && u && (
        <div data-testid="usage">
          <div class="usage-figures">
            <div>
              <strong>{u.summary.calls}</strong> {u.summary.calls === 1 ? 'call' : 'calls'}
            </div>
            <div>
              <strong>{rate(u.summary.error_rate)}</strong> errors ({u.summary.errors} of{' '}
              {count(u.summary.calls, 'call')})
            </div>
            <div>
              <strong>{rate(u.summary.empty_rate)}</strong> empty results ({u.summary.empty} of{' '}
              {count(u.summary.calls - u.summary.errors, 'answered call')})
            </div>
            <div data-testid="cached-share">
              <strong>{rate(u.summary.cached_share)}</strong> from the result cache (
              {u.summary.cached} of {count(u.summary.calls, 'call')})
            </div>
            <div>
              <strong>{ms(u.summary.p50_ms)}</strong> p50 latency
            </div>
            <div>
              <strong>{ms(u.summary.p95_ms)}</strong> p95 latency
            </div>
          </div>
          <h2>How callers found it</h2>
          <table class="grid" data-testid="found-via">
            <tbody>
              <tr>
                <th scope="row">from the tool list</th>
                <td>{u.summary.found_via.listed}</td>
              </tr>
              <tr>
                <th scope="row">picked by POST /v1/tools/select</th>
                <td>{u.summary.found_via.selected}</td>
              </tr>
              <tr>
                <th scope="row">found with search_tools</th>
                <td>{u.summary.found_via.searched}</td>
              </tr>
            </tbody>
          </table>
          <h2>Calls per day</h2>
          {u.summary.calls === 0 ? (
            <p class="muted" data-testid="usage-no-calls">
              No calls in the last {u.days} days: nothing to draw.
            </p>
          ) : (
            <ChartImage chart={u.chart} label={`calls per day of ${u.tool}`} testId="usage-chart" />
          )}
          <p class="muted">
            Counted by every gateway instance and written every few seconds; no argument or row
            value is kept. Days older than the retention are forgotten.
          </p>
        </div>
      )}
    </section>
  );
}
