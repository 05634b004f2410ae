import { useState } from 'preact/hooks';
import { api, describeError } from '../../api';
import type { Identity } from '../../api';
import { formDocument } from '../../report-form';
import type { Draft } from '../../report-form';
import { ChartImage, count, ErrorNote } from '../common';
import type { ReportDocument, TryOutcome } from './report-types';

/** A trial run of the draft (read-only, first page) with the author's sample arguments. */
export function useTryIt(identity: Identity, draft: Draft, loaded: ReportDocument | undefined) {
  const [sample, setSample] = useState('{}');
  const [tried, setTried] = useState<TryOutcome>();
  const [tryError, setTryError] = useState<string>();

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

  return { sample, setSample, tried, setTried, tryError, tryIt };
}

/** The trial's panel: sample arguments in, the page (and its chart) or the error out. */
export function TryPanel({
  trial: { sample, setSample, tried, tryError, tryIt },
  disabled,
}: {
  trial: ReturnType<typeof useTryIt>;
  disabled: boolean;
}) {
  return (
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
      <button type="button" onClick={() => void tryIt()} disabled={disabled}>
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
  );
}
