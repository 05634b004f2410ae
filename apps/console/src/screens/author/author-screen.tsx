import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../api';
import type { Identity } from '../../api';
import { changes, EMPTY_DRAFT, formDocument, toDraft } from '../../report-form';
import type { Draft } from '../../report-form';
import { Confirm, ErrorNote } from '../common';
import { ReportOptions } from '../report-options';
import { FieldRows, FilterRows, MetadataInputs } from './form-fields';
import type { ReportDocument, Status } from './report-types';
import { SqlCheckPanel, useDryRun } from './sql-check';
import { ToolPreview } from './tool-preview';
import type { Format } from './tool-preview';
import { TryPanel, useTryIt } from './try-it';

/**
 * The Author screen: a report's metadata form, the SQL guard's dry run as the author types,
 * the tool the model would get in each provider's format, and a read-only trial run.
 */
export function AuthorScreen({ identity, reportId }: { identity: Identity; reportId?: string }) {
  const [draft, setDraft] = useState<Draft>({ ...EMPTY_DRAFT, id: reportId ?? '' });
  // the document as loaded: members the form does not show are carried from it untouched
  const [loaded, setLoaded] = useState<ReportDocument>();
  const [stored, setStored] = useState<
    { status: 'active' | 'disabled'; view: Status } | undefined
  >();
  const [loadError, setLoadError] = useState<string>();
  const [format, setFormat] = useState<Format>('openai');
  const trial = useTryIt(identity, draft, loaded);
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
    trial.setTried(undefined);
    if (reportId) void load(reportId);
    else {
      setDraft({ ...EMPTY_DRAFT });
      setLoaded(undefined);
      setStored(undefined);
    }
  }, [reportId, identity.token]);
  const { verdict, verdictError } = useDryRun(identity, draft, loaded);

  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
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
          <MetadataInputs draft={draft} set={set} locked={Boolean(stored)} mark={mark} />
          <FilterRows draft={draft} set={set} update={setDraft} />
          <FieldRows draft={draft} set={set} update={setDraft} />
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
          <SqlCheckPanel verdict={verdict} verdictError={verdictError} />
          {verdict?.tool && (
            <ToolPreview tool={verdict.tool} format={format} setFormat={setFormat} />
          )}
          <TryPanel trial={trial} disabled={!verdict?.ok} />
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
