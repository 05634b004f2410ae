import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../api';
import type { Identity } from '../../api';
import { CodeView, SqlEditor } from '../../code';
import { changes, EMPTY_DRAFT, formDocument, toDraft } from '../../report-form';
import type { DocumentJson, Draft, FieldRow, FilterRow } from '../../report-form';
import { ChartImage, Confirm, count, ErrorNote } from '../common';
import { ReportOptions } from '../report-options';

const FILTER_TYPES = [
  'string',
  'enum',
  'integer',
  'number',
  'number_range',
  'date',
  'date_range',
  'boolean',
  'string_list',
];
const FIELD_TYPES = ['string', 'integer', 'number', 'date', 'timestamp', 'boolean', 'json'];
const FORMATS = ['openai', 'anthropic', 'mcp'] as const;

interface ReportDocument extends DocumentJson {
  id: string;
  status: 'active' | 'disabled';
}
interface Problem {
  rule: string;
  message: string;
  part?: { text: string; start: number; end: number };
}
interface Verdict {
  ok: boolean;
  exists: boolean;
  problems: Problem[];
  tool?: { name: string; description: string; contexts: string[]; formats: Record<string, object> };
}
interface Status {
  served: boolean;
  reason?: string;
  version: number;
  updated_at: string;
}
type TryOutcome =
  | {
      is_error: false;
      result: {
        columns: Array<{ name: string; type: string }>;
        rows: Array<Record<string, unknown>>;
        page: number;
        page_size: number;
        has_more: boolean;
      };
      chart?: { type?: string; svg?: string; error?: string };
    }
  | { is_error: true; error: { code: string; message: string } };

const ID = /^[a-z][a-z0-9_]*$/;

export function AuthorScreen({ identity, reportId }: { identity: Identity; reportId?: string }) {
  const [draft, setDraft] = useState<Draft>({ ...EMPTY_DRAFT, id: reportId ?? '' });
  // the document as loaded: members the form does not show are carried from it untouched
  const [loaded, setLoaded] = useState<ReportDocument>();
  const [stored, setStored] = useState<
    { status: 'active' | 'disabled'; view: Status } | undefined
  >();
  const [loadError, setLoadError] = useState<string>();
  const [verdict, setVerdict] = useState<Verdict>();
  const [verdictError, setVerdictError] = useState<string>();
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('openai');
  const [sample, setSample] = useState('{}');
  const [tried, setTried] = useState<TryOutcome>();
  const [tryError, setTryError] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const [saveError, setSaveError] = useState<string>();
  const [confirm, setConfirm] = useState<{ text: string; act: () => Promise<void> }>();

  const load = (id: string) =>
    api<{ report: ReportDocument; status: Status }>(
      identity,
      `/v1/admin/reports/${encodeURIComponent(id)}`,
    ).then(
      (v) => {
        setDraft(toDraft(v.report));
        setLoaded(v.report);
        setStored({ status: v.report.status, view: v.status });
        setLoadError(undefined);
      },
      (err: unknown) => setLoadError(describeError(err)),
    );

  useEffect(() => {
    setSaved(undefined);
    setTried(undefined);
    if (reportId) void load(reportId);
    else {
      setDraft({ ...EMPTY_DRAFT });
      setLoaded(undefined);
      setStored(undefined);
    }
  }, [reportId, identity.token]);

  // dry-run validation as the author types
  useEffect(() => {
    if (!ID.test(draft.id)) {
      setVerdict(undefined);
      setVerdictError(draft.id ? 'the id must match ^[a-z][a-z0-9_]*$' : 'enter an id to validate');
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api<Verdict>(identity, `/v1/admin/reports/${draft.id}/validate`, {
        json: formDocument(draft, loaded),
        signal: controller.signal,
      }).then(
        (v) => {
          setVerdict(v);
          setVerdictError(undefined);
        },
        (err: unknown) => {
          if (!controller.signal.aborted) setVerdictError(describeError(err));
        },
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [draft, loaded, identity.token]);

  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const setFilter = (i: number, patch: Partial<FilterRow>) =>
    setDraft((d) => ({
      ...d,
      filters: d.filters.map((f, j) => (j === i ? { ...f, ...patch } : f)),
    }));
  const setField = (i: number, patch: Partial<FieldRow>) =>
    setDraft((d) => ({ ...d, fields: d.fields.map((f, j) => (j === i ? { ...f, ...patch } : f)) }));
  const mark = verdict?.problems.find((p) => p.part)?.part;

  const save = async () => {
    setSaveError(undefined);
    setSaved(undefined);
    try {
      // an existing report: only what the form changed (PATCH), so nothing else is touched
      const view = await api<{ report: ReportDocument; status: Status }>(
        identity,
        `/v1/admin/reports/${draft.id}`,
        loaded
          ? { method: 'PATCH', json: changes(loaded, formDocument(draft, loaded)) }
          : { method: 'PUT', json: formDocument(draft) },
      );
      setLoaded(view.report);
      setDraft(toDraft(view.report));
      setStored({ status: view.report.status, view: view.status });
      setSaved(`Saved ${draft.id} (version ${view.status.version}).`);
      // the address names the saved report; no hashchange, so this screen keeps its state
      if (reportId !== draft.id) history.replaceState(null, '', `#/author/${draft.id}`);
    } catch (err) {
      setSaveError(describeError(err));
    }
  };
  const act = (text: string, run: () => Promise<void>) => setConfirm({ text, act: run });
  const setStatus = (to: 'enable' | 'disable') =>
    act(
      `${to === 'disable' ? 'Disable' : 'Enable'} ${draft.id}? It ${to === 'disable' ? 'leaves' : 'rejoins'} every tool list at once.`,
      async () => {
        const view = await api<{ report: ReportDocument; status: Status }>(
          identity,
          `/v1/admin/reports/${draft.id}/${to}`,
          { method: 'POST' },
        );
        setLoaded(view.report);
        setStored({ status: view.report.status, view: view.status });
        setSaved(`${to === 'disable' ? 'Disabled' : 'Enabled'} ${draft.id}.`);
      },
    );
  const remove = () =>
    act(`Delete ${draft.id}? The report and its tool are removed for everyone.`, async () => {
      await api(identity, `/v1/admin/reports/${draft.id}`, { method: 'DELETE' });
      setSaved(`Deleted ${draft.id}.`);
      setStored(undefined);
      setLoaded(undefined);
      location.hash = '#/catalog';
    });
  const tryIt = async () => {
    setTryError(undefined);
    setTried(undefined);
    let args: unknown;
    try {
      args = JSON.parse(sample || '{}');
    } catch {
      setTryError('the sample arguments are not JSON');
      return;
    }
    try {
      setTried(
        await api<TryOutcome>(identity, `/v1/admin/reports/${draft.id}/try`, {
          json: { report: { ...formDocument(draft, loaded), status: 'active' }, arguments: args },
        }),
      );
    } catch (err) {
      setTryError(describeError(err));
    }
  };

  return (
    <section aria-labelledby="author-title" class="author">
      <div class="title-row">
        <h1 id="author-title">{stored ? `Report ${draft.id}` : 'New report'}</h1>
        {stored && (
          <span class={`badge ${stored.view.served ? 'ok' : 'bad'}`}>
            {stored.status} ·{' '}
            {stored.view.served ? 'served' : `not served: ${stored.view.reason ?? ''}`} · version{' '}
            {stored.view.version}
          </span>
        )}
      </div>
      <ErrorNote error={loadError} />
      <div class="columns">
        <form class="form" onSubmit={(e) => e.preventDefault()} aria-label="Report metadata">
          <div class="row">
            <label>
              Id
              <input
                name="id"
                value={draft.id}
                readOnly={Boolean(stored)}
                onInput={(e) => set({ id: (e.target as HTMLInputElement).value })}
              />
            </label>
            <label>
              Category
              <input
                name="category"
                value={draft.category}
                onInput={(e) => set({ category: (e.target as HTMLInputElement).value })}
              />
            </label>
          </div>
          <label>
            Name
            <input
              name="name"
              value={draft.name}
              onInput={(e) => set({ name: (e.target as HTMLInputElement).value })}
            />
          </label>
          <label>
            Business description (what the model reads)
            <textarea
              name="description"
              rows={3}
              value={draft.description}
              onInput={(e) => set({ description: (e.target as HTMLTextAreaElement).value })}
            />
          </label>
          <label for="sql">SQL template</label>
          <SqlEditor
            id="sql"
            label="SQL template"
            value={draft.sql}
            mark={mark}
            onInput={(sql) => set({ sql })}
          />
          <fieldset>
            <legend>Filters</legend>
            {draft.filters.map((f, i) => (
              <div class="subrow" data-filter={i}>
                <input
                  aria-label={`filter ${i + 1} name`}
                  placeholder="name"
                  value={f.name}
                  onInput={(e) => setFilter(i, { name: (e.target as HTMLInputElement).value })}
                />
                <select
                  aria-label={`filter ${i + 1} type`}
                  value={f.type}
                  onChange={(e) => setFilter(i, { type: (e.target as HTMLSelectElement).value })}
                >
                  {FILTER_TYPES.map((t) => (
                    <option value={t}>{t}</option>
                  ))}
                </select>
                <label class="inline">
                  <input
                    type="checkbox"
                    checked={f.required}
                    onChange={(e) =>
                      setFilter(i, { required: (e.target as HTMLInputElement).checked })
                    }
                  />
                  required
                </label>
                <input
                  aria-label={`filter ${i + 1} enum values`}
                  placeholder="enum values, comma-separated"
                  value={f.enumValues}
                  onInput={(e) =>
                    setFilter(i, { enumValues: (e.target as HTMLInputElement).value })
                  }
                />
                <input
                  aria-label={`filter ${i + 1} default`}
                  placeholder="default (JSON)"
                  value={f.defaultValue}
                  onInput={(e) =>
                    setFilter(i, { defaultValue: (e.target as HTMLInputElement).value })
                  }
                />
                <input
                  aria-label={`filter ${i + 1} description`}
                  placeholder="description"
                  value={f.description}
                  onInput={(e) =>
                    setFilter(i, { description: (e.target as HTMLInputElement).value })
                  }
                />
                <button
                  type="button"
                  aria-label={`remove filter ${i + 1}`}
                  onClick={() => set({ filters: draft.filters.filter((_, j) => j !== i) })}
                >
                  ×
                </button>
              </div>
            ))}
            <button
              type="button"
              onClick={() =>
                set({
                  filters: [
                    ...draft.filters,
                    {
                      name: '',
                      type: 'string',
                      required: false,
                      enumValues: '',
                      defaultValue: '',
                      description: '',
                    },
                  ],
                })
              }
            >
              Add filter
            </button>
          </fieldset>
          <fieldset>
            <legend>Fields</legend>
            {draft.fields.map((f, i) => (
              <div class="subrow" data-field={i}>
                <input
                  aria-label={`field ${i + 1} name`}
                  placeholder="name"
                  value={f.name}
                  onInput={(e) => setField(i, { name: (e.target as HTMLInputElement).value })}
                />
                <select
                  aria-label={`field ${i + 1} type`}
                  value={f.type}
                  onChange={(e) => setField(i, { type: (e.target as HTMLSelectElement).value })}
                >
                  {FIELD_TYPES.map((t) => (
                    <option value={t}>{t}</option>
                  ))}
                </select>
                <input
                  aria-label={`field ${i + 1} description`}
                  placeholder="description"
                  value={f.description}
                  onInput={(e) =>
                    setField(i, { description: (e.target as HTMLInputElement).value })
                  }
                />
                <button
                  type="button"
                  aria-label={`remove field ${i + 1}`}
                  onClick={() => set({ fields: draft.fields.filter((_, j) => j !== i) })}
                >
                  ×
                </button>
              </div>
            ))}
            <button
              type="button"
              onClick={() =>
                set({ fields: [...draft.fields, { name: '', type: 'string', description: '' }] })
              }
            >
              Add field
            </button>
          </fieldset>
          <ReportOptions identity={identity} draft={draft} set={set} />
          <p class="muted">
            Context and grants follow the category:{' '}
            {verdict?.tool
              ? `in context ${verdict.tool.contexts.join(', ') || '(none)'}`
              : 'validate to see its contexts'}
            ; see <a href="#/access">Who sees what</a> for who gets it.
          </p>
          <div class="actions">
            <button
              type="button"
              class="primary"
              onClick={() => void save()}
              disabled={!verdict?.ok}
            >
              {verdict?.exists ? 'Save (replace)' : 'Save (publish)'}
            </button>
            {stored && stored.status === 'active' && (
              <button type="button" onClick={() => setStatus('disable')}>
                Disable
              </button>
            )}
            {stored && stored.status === 'disabled' && (
              <button type="button" onClick={() => setStatus('enable')}>
                Enable
              </button>
            )}
            {stored && (
              <button type="button" class="danger" onClick={remove}>
                Delete
              </button>
            )}
          </div>
          {saved && (
            <p class="notice" role="status" data-testid="saved">
              {saved}
            </p>
          )}
          <ErrorNote error={saveError} />
        </form>
        <div class="side">
          <section aria-labelledby="verdict-title" class="panel" data-testid="verdict">
            <h2 id="verdict-title">SQL guard (dry run)</h2>
            {verdictError && <p class="muted">{verdictError}</p>}
            {verdict?.ok && <p class="badge ok">accepted: {verdict.tool?.name}</p>}
            {verdict && !verdict.ok && (
              <ul class="problems">
                {verdict.problems.map((p) => (
                  <li>
                    <span class="badge bad">{p.rule}</span> {p.message}
                    {p.part && (
                      <>
                        {' '}
                        — at <mark class="offending">{p.part.text}</mark> (characters {p.part.start}
                        –{p.part.end})
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
          {verdict?.tool && (
            <section aria-labelledby="tool-title" class="panel">
              <h2 id="tool-title">The tool the model gets</h2>
              <h3>Description</h3>
              <pre class="description" data-testid="description">
                {verdict.tool.description}
              </pre>
              <div role="tablist" aria-label="Provider format">
                {FORMATS.map((f) => (
                  <button
                    type="button"
                    role="tab"
                    aria-selected={format === f}
                    onClick={() => setFormat(f)}
                  >
                    {f === 'openai' ? 'OpenAI' : f === 'anthropic' ? 'Anthropic' : 'MCP'}
                  </button>
                ))}
              </div>
              <div role="tabpanel" data-testid={`format-${format}`}>
                <CodeView
                  code={JSON.stringify(verdict.tool.formats[format], null, 2)}
                  language="json"
                  label={`${format} tool`}
                />
              </div>
            </section>
          )}
          <section aria-labelledby="try-title" class="panel">
            <h2 id="try-title">Try it (read-only, first page)</h2>
            <label>
              Sample arguments (JSON)
              <textarea
                name="sample"
                rows={3}
                value={sample}
                onInput={(e) => setSample((e.target as HTMLTextAreaElement).value)}
              />
            </label>
            <button type="button" onClick={() => void tryIt()} disabled={!verdict?.ok}>
              Try it
            </button>
            <ErrorNote error={tryError} />
            {tried?.is_error === true && (
              <p class="error" role="alert">
                {tried.error.code}: {tried.error.message}
              </p>
            )}
            {tried?.is_error === false && (
              <ChartImage
                chart={tried.chart}
                label={`the page drawn as a ${tried.chart?.type ?? ''} chart`}
                testId="try-chart"
              />
            )}
            {tried?.is_error === false && (
              <div class="scroll" data-testid="try-result">
                <table class="grid">
                  <thead>
                    <tr>
                      {tried.result.columns.map((c) => (
                        <th scope="col">
                          {c.name} <span class="muted">{c.type}</span>
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {tried.result.rows.map((row) => (
                      <tr>
                        {tried.result.columns.map((c) => (
                          <td>{row[c.name] === null ? 'null' : String(row[c.name])}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
                <p class="muted">
                  {count(tried.result.rows.length, 'row')} on page {tried.result.page}
                  {tried.result.has_more ? '; more pages exist' : ''}
                </p>
              </div>
            )}
          </section>
        </div>
      </div>
      <Confirm
        open={confirm?.text}
        onAnswer={(yes) => {
          const pending = confirm;
          setConfirm(undefined);
          if (yes && pending)
            pending.act().catch((err: unknown) => setSaveError(describeError(err)));
        }}
      />
    </section>
  );
}
