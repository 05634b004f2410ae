import { useState } from 'preact/hooks';
import { api, describeError } from '../api';
import type { Identity } from '../api';
import { CodeView } from '../code';
import { ErrorNote, useLoad, when } from './common';

interface Proposal {
  id: string;
  name: string;
  description: string;
  source: string;
  sha256: string;
  testArgs: Record<string, unknown> | null;
  proposedBy: string;
  createdAt: string;
  static_findings: Array<{ rule: string; message: string }>;
}
interface Decided {
  id: string;
  name: string;
  proposed_by: string;
  reviewed_by: string | null;
  status: string;
  outcome: string | null;
  created_at: string;
  decided_at: string | null;
}
interface Decision {
  proposal_id: string;
  name: string;
  status: string;
  message: string;
}

function ProposalCard(props: {
  identity: Identity;
  proposal: Proposal;
  onDecided: (d: Decision) => void;
}) {
  const { identity, proposal: p } = props;
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const own = p.proposedBy === identity.user;
  const decide = async (verb: 'approve' | 'reject') => {
    setBusy(true);
    setError(undefined);
    try {
      props.onDecided(
        await api<Decision>(identity, `/v1/admin/meta-tool/proposals/${p.id}/${verb}`, {
          method: 'POST',
          json: verb === 'reject' ? { reason } : {},
        }),
      );
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="panel proposal" data-proposal={p.name} aria-labelledby={`p-${p.id}`}>
      <h2 id={`p-${p.id}`}>{p.name}</h2>
      <p class="muted">
        proposed by <strong>{p.proposedBy}</strong> at {when(p.createdAt)} · sha256{' '}
        {p.sha256.slice(0, 12)}…
      </p>
      {p.description && <p>{p.description}</p>}
      <CodeView code={p.source} language="javascript" label={`source of ${p.name}`} />
      <h3>Test arguments</h3>
      {p.testArgs ? (
        <CodeView
          code={JSON.stringify(p.testArgs, null, 2)}
          language="json"
          label="test arguments"
        />
      ) : (
        <p class="muted">none: the runtime gate will not smoke-test it</p>
      )}
      <h3>Static gate</h3>
      {p.static_findings.length === 0 ? (
        <p>
          <span class="badge ok">passed</span> name, size, no clash, parses as an ES module with a
          default export, every SQL literal passes the SQL guard
        </p>
      ) : (
        <ul>
          {p.static_findings.map((f) => (
            <li>
              <span class="badge bad">{f.rule}</span> {f.message}
            </li>
          ))}
        </ul>
      )}
      <div class="actions">
        {own ? (
          <p class="notice">
            You proposed this tool: another reviewer of your tenant must decide on it.
          </p>
        ) : (
          <button
            type="button"
            class="primary"
            disabled={busy}
            onClick={() => void decide('approve')}
          >
            Approve
          </button>
        )}
        <label>
          Reason
          <input value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
        </label>
        <button
          type="button"
          class="danger"
          disabled={busy || own}
          onClick={() => void decide('reject')}
        >
          Reject
        </button>
      </div>
      <ErrorNote error={error} />
    </article>
  );
}

export function ReviewScreen({ identity }: { identity: Identity }) {
  const { value, error, reload } = useLoad(
    () => api<{ pending: Proposal[]; history: Decided[] }>(identity, '/v1/admin/meta-tool/review'),
    [identity.token],
  );
  const [last, setLast] = useState<Decision>();
  return (
    <section aria-labelledby="review-title">
      <h1 id="review-title">Review generated tools</h1>
      <ErrorNote error={error} />
      {last && (
        <p class={`notice decision-${last.status}`} role="status" data-testid="decision">
          {last.name}: {last.status}. {last.message}
        </p>
      )}
      {value && value.pending.length === 0 && (
        <p class="muted">No proposal is waiting for review.</p>
      )}
      {value?.pending.map((p) => (
        <ProposalCard
          identity={identity}
          proposal={p}
          onDecided={(d) => {
            setLast(d);
            reload();
          }}
        />
      ))}
      {value && (
        <>
          <h2>Decisions</h2>
          <table class="grid" data-testid="history">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Decision</th>
                <th scope="col">Proposed by</th>
                <th scope="col">Decided by</th>
                <th scope="col">When</th>
                <th scope="col">Runtime gate / reason</th>
              </tr>
            </thead>
            <tbody>
              {value.history.map((d) => (
                <tr>
                  <td>{d.name}</td>
                  <td>
                    <span class={`badge ${d.status === 'installed' ? 'ok' : 'bad'}`}>
                      {d.status}
                    </span>
                  </td>
                  <td>{d.proposed_by}</td>
                  <td>{d.reviewed_by}</td>
                  <td>{when(d.decided_at)}</td>
                  <td class="outcome">{d.outcome}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
