import { DecisionEvents } from './decision-events';
import type { DecisionEvent } from './proposal-outcomes';
import {
  analyst,
  author,
  reviewer,
  setupPerFile,
  TENANT,
  toolCode,
} from '../meta-tool.fakes.spec-helper';

const made = setupPerFile();
function reviewing() {
  const fakes = made();
  const proposal = fakes.proposals.add({ name: 'count_orders', source: toolCode() });
  return { ...fakes, proposal };
}

describe('ProposalReview', () => {
  it('shows pending proposals and one proposal to reviewers only', async () => {
    const { review, proposal } = reviewing();
    expect((await review.listPending(reviewer)).map((p) => p.id)).toEqual([proposal.id]);
    expect(await review.get(reviewer, proposal.id)).toMatchObject({ name: 'count_orders' });
    await expect(review.listPending(analyst)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(review.get(reviewer, 'nope')).rejects.toMatchObject({
      code: 'PROPOSAL_NOT_FOUND',
    });
  });

  it('claims before deciding: two decisions on one proposal, the second is refused', async () => {
    const { review, proposal, proposals } = reviewing();
    const other = { ...reviewer, userId: 'dave' };
    const [first, second] = await Promise.allSettled([
      review.reject(reviewer, proposal.id),
      review.approve(other, proposal.id),
    ]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { status: 'rejected' } });
    expect(second).toMatchObject({
      status: 'rejected',
      reason: { code: 'PROPOSAL_NOT_PENDING' },
    });
    expect(proposals.installed).toEqual([]);
  });

  it('counts a rejection as a human gate decision and tells the proposer', async () => {
    const { review, proposal, counted, events } = reviewing();
    const heard: DecisionEvent[] = [];
    events.onDecision((event) => heard.push(event));
    const decision = await review.reject(reviewer, proposal.id, 'too broad');
    expect(counted).toEqual([{ gate: 'human', outcome: 'rejected' }]);
    expect(heard).toEqual([{ tenantId: TENANT, proposer: author.userId, decision }]);
  });
});

describe('DecisionEvents', () => {
  it('a listener that throws does not keep the decision from the others', () => {
    const events = new DecisionEvents();
    const heard: string[] = [];
    events.onDecision(() => {
      throw new Error('a closed session');
    });
    const off = events.onDecision((e) => heard.push(e.decision.proposal_id));
    const decision = { proposal_id: 'p1', name: 't', status: 'rejected', message: '' } as const;
    events.relay({ tenantId: TENANT, proposer: author.userId, decision });
    off();
    events.relay({ tenantId: TENANT, proposer: author.userId, decision });
    expect(heard).toEqual(['p1']);
  });
});
