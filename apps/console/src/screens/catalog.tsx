import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { Identity } from '../api';
import { subscribe } from '../sse';
import { ErrorNote, useLoad, when } from './common';

interface Entry {
  id: string;
  name: string;
  category: string;
  datasource?: string;
  contexts: string[];
  served: boolean;
  reason?: string;
  problems?: Array<{ rule: string; message: string }>;
  version: number;
  updated_at: string;
}

export function CatalogScreen({ identity }: { identity: Identity }) {
  const { value, error, reload } = useLoad(
    () => api<{ version: number; reports: Entry[] }>(identity, '/v1/admin/console/catalog'),
    [identity.token],
  );
  const [live, setLive] = useState<{ state: string; version?: number }>({ state: 'connecting' });
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('all');
  const [category, setCategory] = useState('');
  useEffect(
    () =>
      subscribe(
        identity,
        '/v1/admin/console/events',
        (_event, data) => {
          const version = (data as { version?: number }).version ?? undefined;
          setLive({ state: 'live', version });
          reload();
        },
        (state) => setLive((l) => ({ ...l, state })),
      ),
    [identity.token],
  );
  const reports = value?.reports ?? [];
  const categories = [...new Set(reports.map((r) => r.category))].sort();
  const needle = search.trim().toLowerCase();
  const shown = reports.filter(
    (r) =>
      (!needle ||
        `${r.id} ${r.name} ${r.category} ${r.contexts.join(' ')}`.toLowerCase().includes(needle)) &&
      (status === 'all' || (status === 'served') === r.served) &&
      (!category || r.category === category),
  );
  return (
    <section aria-labelledby="catalog-title">
      <div class="title-row">
        <h1 id="catalog-title">Catalog</h1>
        <span class={`live live-${live.state}`} data-testid="live" role="status">
          {live.state === 'live'
            ? `live · catalog version ${live.version ?? value?.version ?? ''}`
            : live.state}
        </span>
        <a class="button" href="#/author">
          New report
        </a>
      </div>
      <ErrorNote error={error} />
      <div class="filters">
        <label>
          Search
          <input
            type="search"
            value={search}
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="all">all</option>
            <option value="served">served</option>
            <option value="not">not served</option>
          </select>
        </label>
        <label>
          Category
          <select
            value={category}
            onChange={(e) => setCategory((e.target as HTMLSelectElement).value)}
          >
            <option value="">all</option>
            {categories.map((c) => (
              <option value={c}>{c}</option>
            ))}
          </select>
        </label>
        <span class="count">
          {shown.length} of {reports.length} reports
        </span>
      </div>
      <table class="grid" data-testid="catalog">
        <thead>
          <tr>
            <th scope="col">Report</th>
            <th scope="col">Status</th>
            <th scope="col">Version</th>
            <th scope="col">Category</th>
            <th scope="col">Context</th>
            <th scope="col">Last change</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr data-report={r.id}>
              <td>
                <a href={`#/author/${encodeURIComponent(r.id)}`}>{r.id}</a>
                <div class="muted">{r.name}</div>
                {r.datasource && (
                  <div class="muted" data-testid="runs-on">
                    runs on <a href="#/sources">{r.datasource}</a>
                  </div>
                )}
                <a class="small" href={`#/usage/${encodeURIComponent(`query_report_${r.id}`)}`}>
                  usage
                </a>
              </td>
              <td>
                {r.served ? (
                  <span class="badge ok">served</span>
                ) : (
                  <>
                    <span class="badge bad">not served</span>
                    <div class="why">
                      {r.reason}
                      {r.problems?.length ? `: ${r.problems.map((p) => p.message).join('; ')}` : ''}
                    </div>
                  </>
                )}
              </td>
              <td>{r.version}</td>
              <td>{r.category}</td>
              <td>{r.contexts.join(', ') || <span class="muted">none</span>}</td>
              <td>{when(r.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
