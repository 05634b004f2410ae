import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { initSqlParser } from '@app/templates';
import { Logger } from '@nestjs/common';
import type { DecisionEvent } from './meta-tool.service';
import { analyst, author, reviewer, setup, TENANT, toolCode } from './meta-tool.fakes.spec-helper';
import { AUTO_APPROVER } from './options';

const directories: string[] = [];
function service(options: Parameters<typeof setup>[0] = {}) {
  const made = setup(options);
  directories.push(made.directory);
  return made;
}

beforeAll(async () => {
  await initSqlParser();
  Logger.overrideLogger(false);
}, 30_000);
afterAll(() => {
  Logger.overrideLogger(['log', 'error', 'warn']);
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

const refusal = (message: unknown) => ({
  tool: 'meta_tool',
  is_error: true,
  error: { code: 'REFUSED', message },
});

describe('MetaToolService.propose: refusals', () => {
  it('refuses everything while meta_tool is switched off on the gateway', async () => {
    const { service: meta, proposals } = service({ enabled: false });
    await expect(meta.propose(author, { name: 'count_orders', code: toolCode() })).resolves.toEqual(
      refusal(expect.stringContaining('META_TOOL_ENABLED=0')),
    );
    expect(proposals.proposals.size).toBe(0);
  });

  it('refuses a tenant an operator switched off, and stores nothing', async () => {
    const { service: meta, proposals } = service();
    proposals.enabled = false;
    await expect(meta.propose(author, { name: 'count_orders', code: toolCode() })).resolves.toEqual(
      refusal(expect.stringContaining('switched off for your tenant')),
    );
    expect(proposals.proposals.size).toBe(0);
  });

  it('says what to send when neither a proposal id nor name and code are given', async () => {
    const { service: meta } = service();
    const outcome = await meta.propose(author, { name: 'x' } as never);
    expect(outcome).toEqual(refusal(expect.stringContaining('{ "name", "code" }')));
  });

  it('passes on the static gate refusal, naming the rule, and stores nothing', async () => {
    const { service: meta, proposals, counted } = service();
    const outcome = await meta.propose(author, { name: 'Count', code: toolCode() });
    expect(outcome).toEqual(refusal(expect.stringMatching(/^the static gate refused.*name: /)));
    expect(proposals.proposals.size).toBe(0);
    expect(counted).toContainEqual({ gate: 'static', outcome: 'fail' });
  });

  it('refuses SQL literals outside the proposer’s tables, and built-in names', async () => {
    const { service: meta } = service();
    const sql = await meta.propose(author, {
      name: 'peek',
      code: toolCode("return ctx.query('SELECT * FROM secrets');"),
    });
    expect(sql).toEqual(refusal(expect.stringContaining('sql: ')));
    const builtin = await meta.propose(author, { name: 'list_reports', code: toolCode() });
    expect(builtin).toEqual(refusal(expect.stringContaining('name_clash: ')));
  });

  it('refuses a second proposal of a name that is waiting for review', async () => {
    const { service: meta, proposals } = service();
    proposals.add({ name: 'count_orders', proposedBy: 'someone_else' });
    const outcome = await meta.propose(author, { name: 'count_orders', code: toolCode() });
    expect(outcome).toEqual(refusal(expect.stringContaining('pending: a proposal named')));
    expect(proposals.proposals.size).toBe(1);
  });

  it('refuses the same name when another instance stored it first', async () => {
    const { service: meta, proposals } = service();
    proposals.clashOnCreate = true;
    const outcome = await meta.propose(author, { name: 'count_orders', code: toolCode() });
    expect(outcome).toEqual(refusal(expect.stringContaining('"count_orders" is already waiting')));
  });

  it('caps the proposals waiting per user', async () => {
    const { service: meta, proposals } = service({ maxPendingPerUser: 1 });
    proposals.add({ name: 'first' });
    const outcome = await meta.propose(author, { name: 'second', code: toolCode() });
    expect(outcome).toEqual(refusal(expect.stringContaining('META_TOOL_MAX_PENDING_PER_USER=1')));
    expect(proposals.proposals.size).toBe(1);
  });

  it('caps the generated tools per tenant, but lets an installed tool be replaced', async () => {
    const { service: meta, proposals } = service({ maxToolsPerTenant: 1 });
    proposals.generated.add('count_orders');
    const fresh = await meta.propose(author, { name: 'sum_orders', code: toolCode() });
    expect(fresh).toEqual(refusal(expect.stringContaining('META_TOOL_MAX_TOOLS_PER_TENANT=1')));
    const replacement = await meta.propose(author, { name: 'count_orders', code: toolCode() });
    expect(replacement.is_error).toBe(false);
  });

  it('answers a fault as a refusal with a reference, not the error itself', async () => {
    const { service: meta, proposals } = service();
    proposals.failure = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const outcome = await meta.propose(author, { name: 'count_orders', code: toolCode() });
    expect(outcome).toEqual(
      refusal(expect.stringMatching(/could not be handled \(reference \w+\)/)),
    );
    expect(JSON.stringify(outcome)).not.toContain('ECONNREFUSED');
  });
});

describe('MetaToolService.propose: accepted proposals and their state', () => {
  it('stores a passing proposal as pending, with the proposer’s roles and claims', async () => {
    const { service: meta, proposals } = service();
    const outcome = await meta.propose(author, { name: 'count_orders', code: toolCode() });
    expect(outcome).toMatchObject({
      is_error: false,
      text: expect.stringContaining('pending approval'),
      result: { name: 'count_orders', status: 'pending' },
    });
    const [stored] = proposals.proposals.values();
    expect(stored).toMatchObject({ proposerRoles: author.roles, proposerClaims: author.claims });
  });

  it('answers {proposal_id} with the proposer’s own proposal only', async () => {
    const { service: meta, proposals } = service();
    const mine = proposals.add({ name: 'count_orders' });
    await expect(meta.propose(author, { proposal_id: mine.id } as never)).resolves.toMatchObject({
      is_error: false,
      result: { proposal_id: mine.id, status: 'pending', sha256: mine.sha256 },
    });
    await expect(meta.propose(analyst, { proposal_id: mine.id } as never)).resolves.toEqual(
      refusal(`no proposal ${mine.id} of yours in your tenant`),
    );
    await expect(meta.propose(author, { proposal_id: 'nope' } as never)).resolves.toEqual(
      refusal('no proposal nope of yours in your tenant'),
    );
  });

  it('answers {proposal_id} of a decided proposal with the gates’ outcome', async () => {
    const { service: meta, proposals } = service();
    const done = proposals.add({ name: 'a', status: 'installed', outcome: '{"n":1}' });
    const failed = proposals.add({ name: 'b', status: 'failed', outcome: 'the runtime gate …' });
    await expect(meta.propose(author, { proposal_id: done.id } as never)).resolves.toMatchObject({
      is_error: false,
      result: { status: 'installed', smoke_preview: '{"n":1}' },
    });
    await expect(meta.propose(author, { proposal_id: failed.id } as never)).resolves.toEqual(
      refusal('the runtime gate …'),
    );
  });

  it('installs at once with META_TOOL_AUTO_APPROVE=1, recorded as approved by the setting', async () => {
    const { service: meta, proposals } = service({ autoApprove: true });
    const outcome = await meta.propose(author, { name: 'count_orders', code: toolCode() });
    expect(outcome).toMatchObject({ is_error: false, result: { status: 'installed' } });
    expect(proposals.installed[0].installation.approvedBy).toBe(AUTO_APPROVER);
  });
});

describe('MetaToolService: the human decision', () => {
  function pending() {
    const made = service();
    const proposal = made.proposals.add({ name: 'count_orders', source: toolCode() });
    const events: DecisionEvent[] = [];
    made.service.onDecision((event) => events.push(event));
    return { ...made, proposal, events };
  }

  it('installs an approved proposal after the runtime gate, run as the proposer', async () => {
    const {
      service: meta,
      proposals,
      runtime,
      proposal,
      events,
      invalidated,
      directory,
    } = pending();
    const decision = await meta.approve(reviewer, proposal.id);
    expect(decision).toMatchObject({ status: 'installed', smoke_preview: '{"count":3}' });
    expect(runtime.ranAs[0]).toMatchObject({ userId: author.userId, claims: author.claims });
    expect(proposals.installed[0].installation).toMatchObject({ approvedBy: reviewer.userId });
    const file = path.join(directory, TENANT, 'count_orders.mjs');
    expect(readFileSync(file, 'utf8')).toBe(proposal.source);
    expect(invalidated).toEqual([TENANT]);
    expect(events).toEqual([{ tenantId: TENANT, proposer: author.userId, decision }]);
  });

  it('records the runtime gate refusal as failed and installs nothing', async () => {
    const { service: meta, proposals, runtime, proposal, events, directory } = pending();
    runtime.verdict = { ok: false, message: 'smoke call: run() threw TypeError' };
    const decision = await meta.approve(reviewer, proposal.id);
    expect(decision).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('the runtime gate refused count_orders: smoke call'),
    });
    expect(proposals.settled).toEqual([
      { id: proposal.id, status: 'failed', actor: reviewer.userId, outcome: decision.message },
    ]);
    expect(proposals.installed).toEqual([]);
    expect(existsSync(path.join(directory, TENANT, 'count_orders.mjs'))).toBe(false);
    expect(events.map((e) => e.decision.status)).toEqual(['failed']);
  });

  it('settles a decision that throws as failed, with a reference', async () => {
    const { service: meta, proposals, runtime, proposal } = pending();
    runtime.failure = new Error('sandbox crashed');
    const decision = await meta.approve(reviewer, proposal.id);
    expect(decision.status).toBe('failed');
    expect(decision.message).toMatch(/could not be completed \(reference \w+\)/);
    expect(proposals.proposals.get(proposal.id)?.status).toBe('failed');
  });

  it('rejects, saying nothing was run', async () => {
    const { service: meta, proposals, runtime, proposal } = pending();
    const decision = await meta.reject(reviewer, proposal.id, 'too broad');
    expect(decision).toMatchObject({ status: 'rejected', message: /^rejected \(too broad\)/ });
    expect(proposals.settled[0]).toMatchObject({ status: 'rejected', actor: reviewer.userId });
    expect(runtime.ranAs).toEqual([]);
  });

  it('refuses reviewers without the role, the proposer, and decided proposals', async () => {
    const { service: meta, proposals, proposal } = pending();
    await expect(meta.approve(analyst, proposal.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const self = { ...author, roles: ['tool_reviewer'] };
    await expect(meta.approve(self, proposal.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(meta.approve(reviewer, 'nope')).rejects.toMatchObject({
      code: 'PROPOSAL_NOT_FOUND',
    });
    await meta.reject(reviewer, proposal.id);
    await expect(meta.approve(reviewer, proposal.id)).rejects.toMatchObject({
      code: 'PROPOSAL_NOT_PENDING',
    });
    expect(proposals.installed).toEqual([]);
  });
});
