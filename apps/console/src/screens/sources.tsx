import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api';
import type { Identity } from '../api';
import { Confirm, ErrorNote, useLoad, when } from './common';
import { SourceForm } from './source-form';
import type { SourceSettings } from './source-form';

interface Endpoint {
  endpoint: string;
  reachable: boolean;
  latency_ms: number | null;
  server_version: string | null;
  last_error: string | null;
  circuit: string;
  pool: { open: boolean; in_use: number; idle: number; max: number };
}

/** A source as the API lists it: its settings, and what this instance knows of it. */
interface Source extends SourceSettings {
  updated_at: string;
  sealed_with_current_key: boolean;
  health: {
    reachable: boolean;
    latency_ms: number | null;
    server_version: string | null;
    last_error: string | null;
    endpoints: Endpoint[];
  };
}

/**
 * The tenant's own Postgres servers (GET /v1/admin/datasources): connection and health; register,
 * test (a fresh health check), edit and remove them through the admin API. No password is ever
 * shown: the API never returns one.
 */
export function SourcesScreen({ identity }: { identity: Identity }) {
  const { value, error, reload } = useLoad(
    () => api<{ datasources: Source[] }>(identity, '/v1/admin/datasources'),
    [identity.token],
  );
  const [editing, setEditing] = useState<Source | 'new'>();
  const [notice, setNotice] = useState<string>();
  const [actionError, setActionError] = useState<string>();
  const [removing, setRemoving] = useState<string>();
  const test = async (name: string) => {
    setNotice(undefined);
    setActionError(undefined);
    try {
      const s = await api<Source>(identity, `/v1/admin/datasources/${encodeURIComponent(name)}`);
      setNotice(
        s.health.reachable
          ? `${name} is reachable (${s.health.latency_ms ?? '?'} ms${s.health.server_version ? `, ${s.health.server_version}` : ''}).`
          : `${name} is unreachable: ${s.health.last_error ?? 'no answer'}.`,
      );
      reload();
    } catch (err) {
      setActionError(describeError(err));
    }
  };
  const remove = async (name: string) => {
    setNotice(undefined);
    setActionError(undefined);
    try {
      await api(identity, `/v1/admin/datasources/${encodeURIComponent(name)}`, {
        method: 'DELETE',
      });
      setNotice(`Removed ${name}.`);
      reload();
    } catch (err) {
      setActionError(describeError(err));
    }
  };
  useEffect(() => {
    const t = setInterval(reload, 15_000);
    return () => clearInterval(t);
  }, [reload]);
  const sources = value?.datasources ?? [];
  return (
    <section aria-labelledby="sources-title">
      <div class="title-row">
        <h1 id="sources-title">Data sources</h1>
        <button type="button" onClick={reload}>
          Refresh
        </button>
        <button type="button" class="primary" onClick={() => setEditing('new')}>
          Register a source
        </button>
      </div>
      <p class="muted">
        The tenant's own Postgres servers its reports may name (<code>"datasource"</code>),
        registered through <code>PUT /v1/admin/datasources/&#123;name&#125;</code> with a read-only
        login. Passwords are never shown.
      </p>
      <ErrorNote error={error} />
      {editing && (
        <SourceForm
          identity={identity}
          editing={editing === 'new' ? undefined : editing}
          onSaved={(m) => {
            setEditing(undefined);
            setNotice(m);
            reload();
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
      {notice && (
        <p class="notice" role="status" data-testid="source-notice">
          {notice}
        </p>
      )}
      <ErrorNote error={actionError} />
      {value && sources.length === 0 && (
        <p data-testid="no-sources">
          No data source is registered: every report runs on the gateway's database.
        </p>
      )}
      {sources.length > 0 && (
        <table class="grid" data-testid="sources">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Reads</th>
              <th scope="col">Health</th>
              <th scope="col">Endpoints</th>
              <th scope="col">Last change</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((s) => (
              <tr data-source={s.name}>
                <td>
                  <strong>{s.name}</strong>
                  <div class="muted">{s.url}</div>
                  {s.replicas.length > 0 && (
                    <div class="muted">
                      {s.replicas.length} {s.replicas.length === 1 ? 'replica' : 'replicas'}
                    </div>
                  )}
                  {!s.sealed_with_current_key && (
                    <div class="bad-text">sealed with an old key: PUT it again</div>
                  )}
                </td>
                <td>
                  {s.engine === 'mysql' ? 'MySQL database' : 'schema'} <code>{s.schema}</code>:{' '}
                  {s.tables.join(', ')}
                  <div class="muted">
                    pool {s.pool_max}
                    {s.statement_timeout_ms !== null
                      ? ` · timeout ${s.statement_timeout_ms} ms`
                      : ''}
                    {s.pass_identity ? " · passes the caller's identity" : ''}
                  </div>
                </td>
                <td>
                  {s.health.reachable ? (
                    <span class="badge ok">reachable</span>
                  ) : (
                    <span class="badge bad">unreachable</span>
                  )}
                  <div class="muted">
                    {s.health.latency_ms !== null ? `${s.health.latency_ms} ms` : ''}
                    {s.health.server_version ? ` · ${s.health.server_version}` : ''}
                  </div>
                  {s.health.last_error && <div class="why">{s.health.last_error}</div>}
                </td>
                <td>
                  {s.health.endpoints.map((e) => (
                    <div>
                      {e.endpoint}: circuit {e.circuit}, {e.pool.in_use} in use / {e.pool.max}
                    </div>
                  ))}
                </td>
                <td>{when(s.updated_at)}</td>
                <td>
                  <div class="actions">
                    <button type="button" onClick={() => void test(s.name)}>
                      Test
                    </button>
                    <button type="button" onClick={() => setEditing(s)}>
                      Edit
                    </button>
                    <button type="button" class="danger" onClick={() => setRemoving(s.name)}>
                      Remove
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Confirm
        open={
          removing &&
          `Remove the data source ${removing}? Refused while a report runs on it; its login is forgotten.`
        }
        onAnswer={(yes) => {
          const name = removing;
          setRemoving(undefined);
          if (yes && name) void remove(name);
        }}
      />
    </section>
  );
}
