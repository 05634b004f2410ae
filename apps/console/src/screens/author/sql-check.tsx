import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../../api';
import type { Identity } from '../../api';
import { formDocument } from '../../report-form';
import type { Draft } from '../../report-form';
import type { ReportDocument, Verdict } from './report-types';

const ID = /^[a-z][a-z0-9_]*$/;

/** The SQL guard's dry-run verdict on the draft, asked again 300 ms after the author stops typing. */
export function useDryRun(identity: Identity, draft: Draft, loaded: ReportDocument | undefined) {
  const [verdict, setVerdict] = useState<Verdict>();
  const [verdictError, setVerdictError] = useState<string>();

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

  return { verdict, verdictError };
}

/** The dry run's answer: accepted, or each problem with the part of the SQL it points at. */
export function SqlCheckPanel({
  verdict,
  verdictError,
}: {
  verdict: Verdict | undefined;
  verdictError: string | undefined;
}) {
  return (
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
                  — at <mark class="offending">{p.part.text}</mark> (characters {p.part.start}–
                  {p.part.end})
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
