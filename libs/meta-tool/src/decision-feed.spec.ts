import { decisionNotice } from './decision-feed';
import { decisionOf } from './meta-tool.service';
import type { Proposal } from './store/proposal.repository';

const proposal = (over: Partial<Proposal>): Proposal => ({
  id: 'p1',
  tenantId: 'acme',
  name: 'tool',
  description: '',
  source: '',
  sha256: '',
  testArgs: null,
  proposedBy: 'ada',
  status: 'pending',
  reviewedBy: null,
  outcome: null,
  createdAt: '2026-12-02T00:00:00Z',
  proposerRoles: [],
  proposerClaims: {},
  ...over,
});

describe('decisionNotice', () => {
  it('reads a notice with every field a string', () => {
    const notice = { origin: 'o', tenant: 'acme', proposer: 'ada', proposal: 'p1' };
    expect(decisionNotice(JSON.stringify(notice))).toEqual(notice);
  });

  it.each(['', 'nope', 'null', '[]', '{"origin":"o","tenant":"acme","proposer":"ada"}'])(
    'refuses %j',
    (payload) => expect(decisionNotice(payload)).toBeUndefined(),
  );

  it('refuses a field of another type', () => {
    const notice = { origin: 'o', tenant: 'acme', proposer: 'ada', proposal: 1 };
    expect(decisionNotice(JSON.stringify(notice))).toBeUndefined();
  });
});

describe('decisionOf', () => {
  it('is undefined while a proposal is undecided', () => {
    expect(decisionOf(proposal({ status: 'pending' }))).toBeUndefined();
    expect(decisionOf(proposal({ status: 'installing' }))).toBeUndefined();
  });

  it('words an install as the deciding instance did, smoke-tested or not', () => {
    expect(decisionOf(proposal({ status: 'installed', outcome: '42' }))).toEqual({
      proposal_id: 'p1',
      name: 'tool',
      status: 'installed',
      message:
        'installed tool; its smoke call returned 42. It is visible from the next tool list on, not in the round that created it.',
      smoke_preview: '42',
    });
    expect(decisionOf(proposal({ status: 'installed' }))?.message).toContain('never smoke-tested');
  });

  it('gives a failure or rejection its recorded reason', () => {
    expect(
      decisionOf(proposal({ status: 'failed', outcome: 'the runtime gate refused tool' })),
    ).toEqual({
      proposal_id: 'p1',
      name: 'tool',
      status: 'failed',
      message: 'the runtime gate refused tool',
    });
    expect(decisionOf(proposal({ status: 'rejected', outcome: 'rejected (no)' }))?.message).toBe(
      'rejected (no)',
    );
  });
});
