import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { SandboxedToolRunner, SandboxPool } from '@app/meta-tool';
import type { SandboxJob, SandboxPoolOptions } from '@app/meta-tool';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import {
  analystAuthor,
  author,
  callTool,
  decide,
  filesOf,
  install,
  propose,
  toolSource,
} from '../support/meta-tool';

/**
 * Faults of generated tools and of the process boundary they run behind. Each fault stays in
 * its own run: the gateway (this process) keeps serving, the next run works, nothing is left
 * half-written, and no other tenant or tool notices.
 */

const LIMITS: SandboxPoolOptions['limits'] = {
  memoryBytes: 32 << 20,
  stackBytes: 256 << 10,
  cpuMs: 1000,
  outputBytes: 256 * 1024,
  maxHostCalls: 20,
  maxLogLines: 50,
};

function pool(workerSource?: string, overrides: Partial<SandboxPoolOptions> = {}): SandboxPool {
  return new SandboxPool({
    size: 2,
    perTenant: 2,
    queueWaitMs: 1000,
    maxQueue: 100,
    recycleAfter: 100,
    childHeapMb: 256,
    isolateNetwork: false,
    limits: LIMITS,
    workerSource,
    ...overrides,
  });
}

const job = (over: Partial<SandboxJob> = {}): SandboxJob => ({
  tenantId: 'acme',
  name: 't',
  source:
    "export default { name: 't', description: 'd', schema: { type: 'object' }, run(args) { return args.x * 2; } };",
  call: { argsJson: '{"x":21}' },
  user: { user_id: 'u' },
  timeoutMs: 3000,
  onHost: async () => '[]',
  onLog: () => undefined,
  ...over,
});

/** A hostile child: says it is ready, then answers every job with `body` (JS, `m` in scope). */
const hostile = (body: string) =>
  `process.on('message', (m) => { ${body} }); process.send({ type: 'ready' });`;

describe('the sandbox process boundary (faults)', () => {
  // every row has all four values: a row shorter than the callback's parameter list makes
  // jest pass its `done` callback in the missing place (here, as the timeout)
  const cases: Array<[string, string, RegExp, number]> = [
    ['sends null', 'process.send(null);', /crash: .*unknown shape/, 3000],
    [
      'sends garbage of the wrong shape',
      "process.send({ type: 'done', job: 'x', result: 42 });",
      /crash: .*unknown shape/,
      3000,
    ],
    [
      'finishes without a contract',
      "process.send({ type: 'done', job: m.job, called: true, result: '1' });",
      /crash: the tool finished before reporting its contract/,
      3000,
    ],
    [
      'sends a result that is not JSON',
      "process.send({ type: 'contract', job: m.job, contract: JSON.stringify({ problems: [], name: 't', description: 'd', schema: '{}', run: true }) }); process.send({ type: 'done', job: m.job, called: true, result: '{nope' });",
      /crash: the sandbox returned a result that is not JSON/,
      3000,
    ],
    [
      'crashes mid-job',
      'process.exit(7);',
      /crash: the sandbox process ended early \(exit 7/,
      3000,
    ],
    ['hangs', '/* never answers */', /timeout: the tool did not finish within 3000 ms/, 3000],
    [
      'floods stdout and stderr, then hangs',
      "for (let i = 0; i < 2000; i++) { process.stdout.write('x'.repeat(10000)); process.stderr.write('y'.repeat(10000)); }",
      /timeout/,
      3000,
    ],
    [
      'returns 50 MB',
      "process.send({ type: 'contract', job: m.job, contract: JSON.stringify({ problems: [], name: 't', description: 'd', schema: '{}', run: true }) }); process.send({ type: 'done', job: m.job, called: true, result: JSON.stringify('x'.repeat(50 * 1024 * 1024)) });",
      /output: the result is 52428802 characters of JSON, over the 262144-character limit/,
      30_000,
    ],
  ];

  it.each(cases)(
    'a child that %s is contained, and the next job runs',
    async (_, body, says, timeoutMs) => {
      const bad = pool(hostile(body));
      try {
        const outcome = await bad.run(job({ timeoutMs }));
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(`${outcome.stage}: ${outcome.message}`).toMatch(says);
      } finally {
        bad.close();
      }
      const good = pool();
      try {
        expect(await good.run(job())).toMatchObject({ ok: true, result: 42 });
      } finally {
        good.close();
      }
    },
    60_000,
  );

  it('a tool that grows memory by many small allocations is stopped at the memory limit, not the CPU limit', async () => {
    // each allocation is far below the limit (the runtime's own limit refuses only one
    // allocation over it); the total is what the engine's interrupt handler bounds
    // one child, so the job after the bomb runs where the bomb ran
    const grows = pool(undefined, { size: 1, limits: { ...LIMITS, cpuMs: 20_000 } });
    try {
      const outcome = await grows.run(
        job({
          source:
            "export default { name: 't', description: 'd', schema: { type: 'object' }, run() { const kept = []; for (;;) kept.push('x'.repeat(1024) + kept.length); } };",
          timeoutMs: 30_000,
        }),
      );
      expect(outcome).toMatchObject({
        ok: false,
        stage: 'memory',
        message: 'InternalError: out of memory (the limit is 32 MB per run)',
      });
      expect(await grows.run(job())).toMatchObject({ ok: true, result: 42 });
      // the engine's memory never shrinks: the child that held the bomb is replaced, so a
      // modest job (4 MB, kept) is not refused for memory it never used
      expect(
        await grows.run(
          job({
            source:
              "export default { name: 't', description: 'd', schema: { type: 'object' }, run() { const kept = []; for (let i = 0; i < 40000; i++) kept.push('x'.repeat(100) + i); return kept.length; } };",
          }),
        ),
      ).toMatchObject({ ok: true, result: 40000 });
    } finally {
      grows.close();
    }
  }, 60_000);

  it('typed arrays count against the memory limit: the allocation past it fails inside the engine (#28 item 3)', async () => {
    // QuickJS's own limit does not add these up, and its interrupt check comes too rarely to
    // see 1 MB a step: before, this grew the child past 1 GB until the wall clock killed it
    const arrays = pool(undefined, { size: 1, limits: { ...LIMITS, cpuMs: 10_000 } });
    const grow = (body: string) =>
      arrays.run(
        job({
          source: `export default { name: 't', description: 'd', schema: { type: 'object' }, run() { const kept = []; ${body} } };`,
          timeoutMs: 10_000,
        }),
      );
    try {
      // caught inside the run: how many MB the engine handed out before it said no
      const caught = await grow(
        'try { for (;;) kept.push(new Uint8Array(1 << 20)); } catch (e) { return [kept.length, String(e)]; }',
      );
      expect(caught).toMatchObject({
        ok: true,
        result: [expect.any(Number), 'InternalError: out of memory'],
      });
      if (caught.ok) expect((caught.result as number[])[0]).toBeLessThanOrEqual(32 + 16);
      // not caught: the run ends at the memory stage, and the child is replaced
      expect(await grow('for (;;) kept.push(new Float64Array(1 << 17));')).toEqual({
        ok: false,
        stage: 'memory',
        message: 'InternalError: out of memory (the limit is 32 MB per run)',
      });
      expect(await arrays.run(job())).toMatchObject({ ok: true, result: 42 });
    } finally {
      arrays.close();
    }
  }, 60_000);

  it('a child that never says ready is given up on, not waited for forever', async () => {
    const silent = pool('setInterval(() => undefined, 1000);');
    try {
      const outcome = await silent.run(job({ timeoutMs: 200 }));
      expect(outcome).toEqual({
        ok: false,
        stage: 'crash',
        message: 'the sandbox process could not start (it did not report ready within 5000 ms)',
      });
    } finally {
      silent.close();
    }
  });

  it('a child that dies before it is ready is reported with its exit, not waited for', async () => {
    const dies = pool("process.stderr.write('no engine here'); process.exit(2);");
    try {
      const outcome = await dies.run(job());
      expect(outcome).toEqual({
        ok: false,
        stage: 'crash',
        message: expect.stringMatching(
          /^the sandbox process could not start \(the sandbox process ended early \(exit 2: no engine here\)\)$/,
        ),
      });
    } finally {
      dies.close();
    }
  });

  it('a job whose timeout is not a positive number is refused before any child starts', async () => {
    const strict = pool();
    try {
      for (const timeoutMs of [Number.NaN, 0, -1, (() => 1) as unknown as number])
        await expect(strict.run(job({ timeoutMs }))).rejects.toThrow(
          /SandboxPool.run: timeoutMs must be a positive number of milliseconds/,
        );
      expect(strict.stats().workers).toBe(0);
    } finally {
      strict.close();
    }
  });

  it('answers "busy" past the per-tenant bound and the queue wait, and keeps the other tenant running', async () => {
    const slow = pool(undefined, { size: 3, perTenant: 1, queueWaitMs: 200 });
    try {
      const spin = job({
        source:
          "export default { name: 't', description: 'd', schema: { type: 'object' }, run() { for (;;) {} } };",
        timeoutMs: 5000,
      });
      const first = slow.run(spin);
      const second = await slow.run(spin);
      expect(second).toEqual({
        ok: false,
        stage: 'busy',
        message: expect.stringContaining('busy: every sandbox for generated tools is in use'),
      });
      expect(await slow.run(job({ tenantId: 'globex' }))).toMatchObject({ ok: true, result: 42 });
      expect(await first).toMatchObject({ ok: false, stage: 'cpu' });
    } finally {
      slow.close();
    }
  });
});

describe('generated tools in the gateway (faults)', () => {
  let gw: RunningGateway;
  const analyst: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
  const globexAuthor: TokenClaims = { tenant: 'globex', user: 'gia', roles: ['tool_author'] };
  const globexReviewer: TokenClaims = { tenant: 'globex', user: 'gus', roles: ['tool_reviewer'] };

  beforeAll(async () => {
    gw = await startGateway({
      META_TOOL_TIMEOUT_MS: '3000',
      META_TOOL_CPU_MS: '2500',
      META_TOOL_MEMORY_MB: '64',
      META_TOOL_POOL_SIZE: '3',
      META_TOOL_MAX_CONCURRENT_PER_TENANT: '2',
      META_TOOL_QUEUE_WAIT_MS: '500',
      REPORT_STATEMENT_TIMEOUT_MS: '60000',
      META_TOOL_APPROVAL_WAIT_MS: '',
      META_TOOL_ENABLED: '',
      // the sandbox's own bounds are under test here: the per-tenant query limit (on by
      // default since issue #38) would hold the floods back before the runner saw them
      LIMIT_TENANT_CONCURRENT_QUERIES: '0',
    });
    await install(gw, { name: 'echo', code: toolSource('echo', 'return args;'), testArgs: {} });
  });
  afterAll(() => gw.close());

  // whatever a fault did, it left no proposal installing and no temp file behind
  afterEach(async () => {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM gateway.tool_proposals WHERE status = 'installing'`.execute(
      gw.database.handle.db,
    );
    expect(Number(rows[0].n)).toBe(0);
    expect(filesOf(gw).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
  });

  const runner = () => gw.app.get(SandboxedToolRunner);
  const alive = async () => {
    expect((await gw.request('/healthz')).status).toBe(200);
    expect((await callTool(gw, author, 'echo', { ok: 1 })).body.result).toEqual({
      value: { ok: 1 },
    });
  };

  it('3,000- and 200,000-level nested arguments are INVALID_ARGUMENTS, never a crash', async () => {
    for (const depth of [3000, 200_000]) {
      const body = `{"arguments":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const res = await gw.request('/v1/tools/echo/call', {
        method: 'POST',
        as: author,
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBeLessThan(500);
      const json = (await res.json()) as { is_error?: boolean; error?: { code: string } };
      expect(json.error?.code).toBe('INVALID_ARGUMENTS');
    }
    await alive();
  });

  it('a 10 MB result is refused with a model-readable message', async () => {
    await install(gw, {
      name: 'ten_mb',
      code: toolSource('ten_mb', "return args.go ? 'x'.repeat(10 * 1024 * 1024) : 'small';"),
      testArgs: {},
    });
    const called = await callTool(gw, author, 'ten_mb', { go: true });
    expect(called.body.is_error).toBe(true);
    expect(called.body.error?.message).toMatch(/ten_mb failed \((output|memory|timeout)\)/);
    await alive();
  });

  it('a tool that hangs is ended at its timeout; the next call works', async () => {
    await install(gw, {
      name: 'hangs',
      code: toolSource('hangs', 'if (args.hang) for (;;) {} return 1;'),
      testArgs: {},
    });
    const called = await callTool(gw, author, 'hangs', { hang: true });
    expect(called.body.error?.message).toMatch(/hangs failed \((cpu|timeout)\)/);
    await alive();
  });

  it('a sandbox killed during approval leaves a failed proposal, no temp file, no row', async () => {
    const proposed = await propose(gw, {
      name: 'killed_in_review',
      code: toolSource('killed_in_review', 'for (;;) {}'),
      testArgs: {},
    });
    const id = String(proposed.body.result?.proposal_id);
    const decision = decide(gw, id, 'approve');
    const before = new Set(runner().pool.pids());
    // kill the child running the smoke call (a child this test's gateway started)
    const victim = await eventually(async () => {
      const busy = runner().pool.busyPids();
      expect(busy.length).toBeGreaterThan(0);
      return busy[0];
    });
    expect(before.has(victim)).toBe(true);
    process.kill(victim, 'SIGKILL');
    const decided = await decision;
    expect(decided.body).toMatchObject({ status: 'failed' });
    expect(String(decided.body.message)).toMatch(/crash: the sandbox process ended early|timeout/);
    const { rows } = await sql<{ status: string }>`
      SELECT status FROM gateway.tool_proposals WHERE id = ${id}`.execute(gw.database.handle.db);
    expect(rows[0].status).toBe('failed');
    expect(filesOf(gw).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect(filesOf(gw)).not.toContain('killed_in_review.mjs');
    await alive();
  });

  it('"nothing was installed" holds when the install fails between the file and the commit', async () => {
    await install(gw, { name: 'atomic', code: toolSource('atomic', "return 'v1';"), testArgs: {} });
    const db = gw.database.handle.db;
    // a deferred constraint trigger fails the transaction at COMMIT, after the file moved
    await sql
      .raw(
        `CREATE FUNCTION gateway.fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           IF NEW.name = 'atomic' AND NEW.source LIKE '%v2%' THEN RAISE EXCEPTION 'injected commit failure'; END IF;
           RETURN NULL; END $$;
         CREATE CONSTRAINT TRIGGER fail_commit AFTER INSERT OR UPDATE ON gateway.generated_tools
           DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION gateway.fail_commit();`,
      )
      .execute(db);
    try {
      const proposed = await propose(gw, {
        name: 'atomic',
        code: toolSource('atomic', "return 'v2';"),
        testArgs: {},
      });
      const decision = await decide(gw, String(proposed.body.result?.proposal_id), 'approve');
      expect(decision.body).toMatchObject({
        status: 'failed',
        message: expect.stringContaining('Nothing was installed'),
      });
      expect(readFileSync(`${gw.toolsDir}/acme/atomic.mjs`, 'utf8')).toContain("'v1'");
      expect(filesOf(gw).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
      expect((await callTool(gw, author, 'atomic', {})).body.result).toEqual({ value: 'v1' });
    } finally {
      await sql
        .raw(
          'DROP TRIGGER fail_commit ON gateway.generated_tools; DROP FUNCTION gateway.fail_commit();',
        )
        .execute(db);
    }
  });

  it('40 concurrent calls never run more sandboxes than the pool size', async () => {
    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, runner().pool.stats().workers);
    }, 5);
    try {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => callTool(gw, author, 'echo', { i })),
      );
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(['BUSY', undefined]).toContain(r.body.error?.code);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeLessThanOrEqual(3);
    expect(runner().pool.stats().workers).toBeLessThanOrEqual(3);
  });

  it('100 concurrent calls of a slow tool: excess calls are told "busy"; reports and other tenants keep working', async () => {
    await install(gw, {
      name: 'slow',
      code: toolSource('slow', 'let x = 0; for (let i = 0; i < 3e5; i++) x += i; return x > 0;'),
      testArgs: {},
    });
    const globexProposal = await propose(
      gw,
      { name: 'globex_echo', code: toolSource('globex_echo', "return 'globex';"), testArgs: {} },
      globexAuthor,
    );
    await decide(gw, String(globexProposal.body.result?.proposal_id), 'approve', globexReviewer);
    const flood = Promise.all(Array.from({ length: 100 }, () => callTool(gw, author, 'slow', {})));
    const report = await callTool(gw, analyst, 'query_report_orders_by_status', {});
    const other = await callTool(gw, globexAuthor, 'globex_echo', {});
    const results = await flood;
    expect(report.body.is_error).toBe(false);
    expect(other.body.result).toEqual({ value: 'globex' });
    const codes = new Set(results.map((r) => r.body.error?.code ?? 'ok'));
    if (![...codes].every((c) => c === 'ok' || c === 'BUSY'))
      throw new Error(
        JSON.stringify(results.find((r) => r.body.error && r.body.error.code !== 'BUSY')?.body),
      );
    expect([...codes].every((c) => c === 'ok' || c === 'BUSY')).toBe(true);
    expect(codes.has('BUSY')).toBe(true);
    const busy = results.find((r) => r.body.error?.code === 'BUSY');
    expect(busy?.body.error?.message).toContain('Try again in a few seconds');
    await alive();
  });

  it('a run that fires heavy queries without awaiting them and hangs: at most two run, all are cancelled at its end', async () => {
    await install(
      gw,
      {
        name: 'query_bomb',
        code: toolSource(
          'query_bomb',
          "if (!args.go) return 'idle'; const t = 'ord' + 'ers'; for (let i = 0; i < 60; i++) ctx.query(`SELECT count(*) FROM ${t} a CROSS JOIN ${t} b WHERE a.id + b.id > ${i}`).catch(() => undefined); for (;;) {}",
        ),
        testArgs: {},
      },
      analystAuthor,
    );
    const db = gw.database.handle.db;
    const running = async () =>
      Number(
        (
          await sql<{ n: string }>`
            SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'active' AND query LIKE '%CROSS JOIN%' AND query NOT LIKE '%pg_stat_activity%'
              AND pid <> pg_backend_pid()`.execute(db)
        ).rows[0].n,
      );
    let most = 0;
    const sampler = setInterval(() => {
      void running().then(
        (n) => (most = Math.max(most, n)),
        () => undefined,
      );
    }, 50);
    try {
      const called = await callTool(gw, analystAuthor, 'query_bomb', { go: true });
      expect(called.body.error?.message).toMatch(/query_bomb failed \((cpu|timeout)\)/);
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeLessThanOrEqual(2);
    // the statement timeout is 60 s: only the cancel can end them this soon
    await eventually(async () => expect(await running()).toBe(0), { timeoutMs: 8000 });
    await alive();
  });
});
