import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Identity } from '../api';
import { ErrorNote, useLoad } from './common';

interface Row {
  id: string;
  name: string;
  tool: string;
  calls: number;
  errors: number;
  error_rate: number | null;
  empty: number;
  empty_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}

type Column = 'id' | 'calls' | 'error_rate' | 'empty_rate' | 'p50_ms' | 'p95_ms';
const COLUMNS: Array<{ key: Column; title: string }> = [
  { key: 'id', title: 'Report' },
  { key: 'calls', title: 'Calls' },
  { key: 'error_rate', title: 'Errors' },
  { key: 'empty_rate', title: 'Empty results' },
  { key: 'p50_ms', title: 'p50' },
  { key: 'p95_ms', title: 'p95' },
];

const rate = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(1)} %`);
const ms = (v: number | null) => (v === null ? 'n/a' : `≤ ${v} ms`);

/** Sorted by `key`; values that do not apply (n/a) last whatever the direction. */
function sorted(rows: Row[], key: Column, descending: boolean): Row[] {
  return [...rows].sort((a, b) => {
    const [x, y] = [a[key], b[key]];
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    const order = x < y ? -1 : x > y ? 1 : 0;
    return (descending ? -order : order) || (a.id < b.id ? -1 : 1);
  });
}

/**
 * Every report of the tenant over the period (GET /v1/admin/console/usage/overview): which are
 * used, failing, answering empty, slow, or never called; sortable by each column.
 */
export function UsageOverview({ identity, days }: { identity: Identity; days: number }) {
  const [sort, setSort] = useState<{ key: Column; descending: boolean }>({
    key: 'calls',
    descending: true,
  });
  const overview = useLoad(
    () =>
      api<{ days: number; reports: Row[] }>(
        identity,
        `/v1/admin/console/usage/overview?days=${days}`,
      ),
    [identity.token, days],
  );
  const rows = sorted(overview.value?.reports ?? [], sort.key, sort.descending);
  const never = rows.filter((r) => r.calls === 0).length;
  return (
    <div data-testid="usage-overview">
      <ErrorNote error={overview.error} />
      {overview.value && (
        <p class="muted">
          {rows.length} reports over the last {days} days; {never} never called.
        </p>
      )}
      <table class="grid">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th
                scope="col"
                aria-sort={
                  sort.key === c.key ? (sort.descending ? 'descending' : 'ascending') : undefined
                }
              >
                <button
                  type="button"
                  class="link"
                  onClick={() =>
                    setSort((s) => ({
                      key: c.key,
                      descending: s.key === c.key ? !s.descending : c.key !== 'id',
                    }))
                  }
                >
                  {c.title}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr data-usage={r.id}>
              <td>
                <a href={`#/usage/${encodeURIComponent(r.tool)}`}>{r.id}</a>
                <div class="muted">{r.name}</div>
              </td>
              <td>{r.calls === 0 ? <span class="badge bad">never called</span> : r.calls}</td>
              <td>
                {rate(r.error_rate)}
                {r.calls > 0 && <span class="muted"> ({r.errors})</span>}
              </td>
              <td>
                {rate(r.empty_rate)}
                {r.calls > 0 && <span class="muted"> ({r.empty})</span>}
              </td>
              <td>{ms(r.p50_ms)}</td>
              <td>{ms(r.p95_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
