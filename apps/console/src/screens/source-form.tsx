import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api';
import type { Identity } from '../api';
import { ErrorNote } from './common';

/** What the list says of a source: its URLs come without their password. */
export interface SourceSettings {
  name: string;
  url: string;
  replicas: string[];
  schema: string;
  tables: string[];
  pool_max: number;
  statement_timeout_ms: number | null;
  /** sessions carry the caller's identity as request.jwt.claims (Postgres sources) */
  pass_identity: boolean;
  engine: 'postgres' | 'mysql';
  /** the CA its TLS trusts: sent back on every save, so an edit keeps it */
  ca_pem: string | null;
}

interface Form {
  name: string;
  url: string;
  password: string;
  replicas: string;
  schema: string;
  tables: string;
  poolMax: string;
  timeoutMs: string;
  passIdentity: boolean;
  caPem: string;
}

const BLANK: Form = {
  name: '',
  url: '',
  password: '',
  replicas: '',
  schema: 'public',
  tables: '',
  poolMax: '',
  timeoutMs: '',
  passIdentity: false,
  caPem: '',
};

function formOf(s: SourceSettings): Form {
  return {
    name: s.name,
    url: s.url,
    password: '',
    replicas: s.replicas.join('\n'),
    schema: s.schema,
    tables: s.tables.join(', '),
    poolMax: String(s.pool_max),
    timeoutMs: s.statement_timeout_ms === null ? '' : String(s.statement_timeout_ms),
    passIdentity: s.pass_identity,
    caPem: s.ca_pem ?? '',
  };
}

/** A URL with the typed password put in (when it has none of its own), or as typed if unreadable. */
function withPassword(url: string, password: string): string {
  if (!password) return url;
  try {
    const u = new URL(url);
    if (!u.password) u.password = password;
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * Registers or changes a data source through PUT /v1/admin/datasources/{name} (the gateway checks
 * the login before it saves). The password is typed separately, sent once, and cleared: the
 * gateway never returns it, so an edit asks for it again.
 */
export function SourceForm(props: {
  identity: Identity;
  editing?: SourceSettings;
  onSaved: (message: string) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState<Form>(props.editing ? formOf(props.editing) : BLANK);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setForm(props.editing ? formOf(props.editing) : BLANK);
    setError(undefined);
  }, [props.editing]);
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const field = (key: keyof Form) => ({
    value: String(form[key]),
    onInput: (e: Event) => set({ [key]: (e.target as HTMLInputElement).value }),
  });
  const save = async () => {
    setBusy(true);
    setError(undefined);
    const list = (text: string, separator: RegExp) =>
      text
        .split(separator)
        .map((s) => s.trim())
        .filter(Boolean);
    try {
      const view = await api<{ name: string }>(
        props.identity,
        `/v1/admin/datasources/${encodeURIComponent(form.name)}`,
        {
          method: 'PUT',
          json: {
            url: withPassword(form.url.trim(), form.password),
            replicas: list(form.replicas, /\n/).map((r) => withPassword(r, form.password)),
            schema: form.schema.trim(),
            tables: list(form.tables, /,/),
            ...(form.poolMax ? { pool_max: Number(form.poolMax) } : {}),
            ...(form.timeoutMs ? { statement_timeout_ms: Number(form.timeoutMs) } : {}),
            // sent always: a PUT replaces the source, and an edit must keep what it had
            pass_identity: form.passIdentity,
            ...(form.caPem.trim() ? { ca_pem: form.caPem } : {}),
          },
        },
      );
      set({ password: '' });
      props.onSaved(`Saved data source ${view.name}: its login was checked and is read-only.`);
    } catch (err) {
      set({ password: '' });
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="form panel"
      aria-label={props.editing ? `Edit ${props.editing.name}` : 'Register a data source'}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{props.editing ? `Edit ${props.editing.name}` : 'Register a data source'}</h2>
      <div class="row">
        <label>
          Source name
          <input name="source_name" readOnly={Boolean(props.editing)} {...field('name')} />
        </label>
        <label>
          Schema
          <input name="schema" {...field('schema')} />
        </label>
      </div>
      <label>
        Connection URL (postgres://user@host:port/database or mysql://user@host:3306/database,
        without the password)
        <input name="url" autocomplete="off" {...field('url')} />
      </label>
      <label>
        Password {props.editing ? '(needed again to save: it is never sent back)' : ''}
        <input name="password" type="password" autocomplete="new-password" {...field('password')} />
      </label>
      <label>
        Tables the reports may read (comma-separated)
        <input name="tables" {...field('tables')} />
      </label>
      <label>
        Read replicas (one URL per line, same password)
        <textarea name="replicas" rows={2} {...field('replicas')} />
      </label>
      <div class="row">
        <label>
          Pool size (1-100, empty: the default)
          <input name="pool_max" inputMode="numeric" {...field('poolMax')} />
        </label>
        <label>
          Statement timeout ms (empty: the default)
          <input name="statement_timeout_ms" inputMode="numeric" {...field('timeoutMs')} />
        </label>
      </div>
      <label>
        CA certificate (PEM), for sslmode=verify-ca or verify-full
        <textarea name="ca_pem" rows={2} {...field('caPem')} />
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="pass_identity"
          checked={form.passIdentity}
          onChange={(e) => set({ passIdentity: (e.target as HTMLInputElement).checked })}
        />
        Pass the caller's identity (request.jwt.claims, for the warehouse's row-level security;
        Postgres sources only)
      </label>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {props.editing ? 'Save source' : 'Register source'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
