import { useState } from 'preact/hooks';
import { api, describeError } from '../api';
import type { Identity } from '../api';
import { ErrorNote, useLoad } from './common';

interface ToolList {
  user: string;
  effective_roles: string[];
  tools: Array<{ name: string; kind: string; description: string }>;
}
interface Explanation {
  tool: string;
  user: string;
  visible: boolean;
  effective_roles: string[];
  checks: Array<{ check: string; ok: boolean; detail: string }>;
}

export function AccessScreen({ identity }: { identity: Identity }) {
  const [user, setUser] = useState('alice');
  const [roles, setRoles] = useState('analyst');
  const [claims, setClaims] = useState('');
  const [context, setContext] = useState('');
  const [list, setList] = useState<ToolList>();
  const [error, setError] = useState<string>();
  const [tool, setTool] = useState('');
  const [why, setWhy] = useState<Explanation>();
  const [whyError, setWhyError] = useState<string>();
  const catalog = useLoad(
    () =>
      api<{ reports: Array<{ id: string; contexts: string[] }> }>(
        identity,
        '/v1/admin/console/catalog',
      ),
    [identity.token],
  );
  const contexts = [...new Set((catalog.value?.reports ?? []).flatMap((r) => r.contexts))].sort();
  const query = () =>
    new URLSearchParams({ user, roles, claims, ...(context ? { context } : {}) }).toString();
  const show = async () => {
    setError(undefined);
    setWhy(undefined);
    try {
      setList(await api<ToolList>(identity, `/v1/admin/access/tools?${query()}`));
    } catch (err) {
      setList(undefined);
      setError(describeError(err));
    }
  };
  const explain = async (name: string) => {
    setTool(name);
    setWhyError(undefined);
    try {
      setWhy(
        await api<Explanation>(
          identity,
          `/v1/me/tools/explain?tool=${encodeURIComponent(name)}&${query()}`,
        ),
      );
    } catch (err) {
      setWhy(undefined);
      setWhyError(describeError(err));
    }
  };
  return (
    <section aria-labelledby="access-title">
      <h1 id="access-title">Who sees what</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void show();
        }}
      >
        <label>
          User
          <input
            name="user"
            value={user}
            onInput={(e) => setUser((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Roles
          <input
            name="roles"
            value={roles}
            placeholder="analyst,finance"
            onInput={(e) => setRoles((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Claims
          <input
            name="claims"
            value={claims}
            placeholder="region=west"
            onInput={(e) => setClaims((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Context
          <select
            name="context"
            value={context}
            onChange={(e) => setContext((e.target as HTMLSelectElement).value)}
          >
            <option value="">any</option>
            {contexts.map((c) => (
              <option value={c}>{c}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Show tools
        </button>
      </form>
      <ErrorNote error={error} />
      <div class="columns">
        <div>
          {list && (
            <>
              <p>
                <strong>{list.user}</strong> (effective roles:{' '}
                {list.effective_roles.join(', ') || 'none'}) gets {list.tools.length} tools
                {context ? ` in context ${context}` : ''}:
              </p>
              <ul class="tools" data-testid="access-tools">
                {list.tools.map((t) => (
                  <li>
                    <button type="button" class="link" onClick={() => void explain(t.name)}>
                      {t.name}
                    </button>{' '}
                    <span class="muted">
                      {t.kind} · {t.description}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
        <div class="panel">
          <h2>Why is a tool in or out?</h2>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void explain(tool);
            }}
          >
            <label>
              Tool name
              <input
                name="tool"
                list="tool-names"
                value={tool}
                onInput={(e) => setTool((e.target as HTMLInputElement).value)}
              />
            </label>
            <datalist id="tool-names">
              {(catalog.value?.reports ?? []).map((r) => (
                <option value={`query_report_${r.id}`} />
              ))}
            </datalist>
            <button type="submit">Explain</button>
          </form>
          <ErrorNote error={whyError} />
          {why && (
            <div data-testid="explain">
              <p>
                <code>{why.tool}</code> is <strong>{why.visible ? 'in' : 'out of'}</strong>{' '}
                {why.user}'s list.
              </p>
              <ul class="checks">
                {why.checks.map((c) => (
                  <li>
                    <span class={`badge ${c.ok ? 'ok' : 'bad'}`}>{c.check}</span> {c.detail}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      </div>
    </section>
  );
}
