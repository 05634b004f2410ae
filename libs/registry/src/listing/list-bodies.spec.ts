import { Metrics } from '../metrics';
import { SharedCache } from '../catalog/cache/shared-cache';
import { FakeRedis } from '../catalog/fake-redis.spec-helper';
import { listKey, seal } from '../catalog/cache/l2-values';
import { bodyKey, ListBodies } from './list-bodies';

const acme = { id: 'acme', createdAt: '2026-11-30T00:00:00Z' };

/** A build the test releases when it wants, counting its runs. */
function gated(tools: string[]) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const state = { runs: 0 };
  const build = async () => {
    state.runs++;
    await gate;
    return JSON.stringify({ tools });
  };
  return { build, open: () => open(), state };
}

function setup(variant?: string) {
  const metrics = new Metrics();
  const redis = new FakeRedis();
  const shared = new SharedCache(metrics, redis.asRedis());
  const scopeOf = (t: { id: string }) => Promise.resolve(`${t.id}.scope`);
  const bodies = new ListBodies(shared, scopeOf, metrics, 45, variant);
  const level = (l: string) => metrics.value('gateway_list_requests_total', { level: l });
  return { bodies, redis, metrics, level };
}

describe('bodyKey', () => {
  it('tells formats and variants apart', () => {
    const v = { suffix: 'found:a', shape: () => [] };
    const keys = [bodyKey('k', 'mcp'), bodyKey('k', 'openai'), bodyKey('k', 'mcp', v)];
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('ListBodies', () => {
  it('builds a missing body once for concurrent misses, and keeps it in L1 and L2', async () => {
    const { bodies, redis, level } = setup();
    const { build, open, state } = gated(['a']);
    const written = redis.nextSet();
    const asked = [1, 2, 3].map(() => bodies.fetch('acme:1:p:*:mcp', acme, build));
    open();
    const answers = await Promise.all(asked);
    expect(state.runs).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]!.toString()).toBe(JSON.stringify({ tools: ['a'] }));
    expect(level('build')).toBe(1);
    const l2Key = await written;
    expect(l2Key).toBe(listKey('acme.scope', 'acme:1:p:*:mcp'));
    expect(redis.expiries.get(l2Key)).toBe(45);
    expect(bodies.held('acme:1:p:*:mcp')).toBe(answers[0]);
    expect(level('l1')).toBe(1);
  });

  it('answers from L2 on another instance without building', async () => {
    const first = setup();
    const written = first.redis.nextSet();
    await first.bodies.fetch('acme:1:p:*:mcp', acme, () => Promise.resolve('{"tools":["a"]}'));
    await written;
    const other = new ListBodies(
      new SharedCache(new Metrics(), first.redis.asRedis()),
      (t) => Promise.resolve(`${t.id}.scope`),
      first.metrics,
      45,
      undefined,
    );
    const { build, state } = gated(['b']);
    const body = await other.fetch('acme:1:p:*:mcp', acme, build);
    expect(state.runs).toBe(0);
    expect(body.toString()).toBe('{"tools":["a"]}');
    expect(first.level('l2')).toBe(1);
  });

  it('drops a corrupt L2 body and builds instead of serving it', async () => {
    const { bodies, redis, level } = setup();
    const key = listKey('acme.scope', 'k:mcp');
    redis.values.set(key, seal('{"tools":["x"]}').replace('"x"', '"y"'));
    const body = await bodies.fetch('k:mcp', acme, () => Promise.resolve('{"tools":["fresh"]}'));
    expect(body.toString()).toBe('{"tools":["fresh"]}');
    expect(level('build')).toBe(1);
    expect(level('l2')).toBe(0);
  });

  it('keeps nothing of a failed build', async () => {
    const { bodies, redis } = setup();
    await expect(
      bodies.fetch('k:mcp', acme, () => Promise.reject(new Error('catalog down'))),
    ).rejects.toThrow('catalog down');
    expect(bodies.held('k:mcp')).toBeUndefined();
    expect(redis.values.size).toBe(0);
  });

  it('puts the shaper tag in the L2 key, so differently shaped lists are never shared', async () => {
    const { bodies, redis } = setup('inline-20');
    const written = redis.nextSet();
    await bodies.fetch('k:mcp', acme, () => Promise.resolve('{"tools":[]}'));
    expect(await written).toBe(listKey('acme.scope', 'k:mcp:inline-20'));
  });

  it('skips L2 when the tenant has no scope, and still builds and holds', async () => {
    const metrics = new Metrics();
    const redis = new FakeRedis();
    const bodies = new ListBodies(
      new SharedCache(metrics, redis.asRedis()),
      () => Promise.resolve(undefined),
      metrics,
      45,
      undefined,
    );
    const body = await bodies.fetch('k:mcp', acme, () => Promise.resolve('{"tools":[]}'));
    expect(bodies.held('k:mcp')).toBe(body);
    expect(redis.commands).toEqual([]);
  });

  it("retires a tenant's bodies of older catalog versions, and no other tenant's", async () => {
    const { bodies } = setup();
    const put = (key: string) => bodies.fetch(key, acme, () => Promise.resolve('{"tools":[]}'));
    for (const key of ['acme:1:p:*:mcp', 'acme:2:p:*:mcp', 'acme2:1:p:*:mcp', 'globex:1:p:*:mcp'])
      await put(key);
    bodies.retireOlder('acme', 2);
    expect(bodies.held('acme:1:p:*:mcp')).toBeUndefined();
    expect(bodies.held('acme:2:p:*:mcp')).toBeDefined();
    expect(bodies.held('acme2:1:p:*:mcp')).toBeDefined();
    expect(bodies.held('globex:1:p:*:mcp')).toBeDefined();
    // an older version announced late retires nothing
    bodies.retireOlder('acme', 1);
    expect(bodies.held('acme:2:p:*:mcp')).toBeDefined();
  });

  it('counts held bodies and bytes, and clear() empties L1', async () => {
    const { bodies } = setup();
    const json = '{"tools":["abc"]}';
    await bodies.fetch('k1', acme, () => Promise.resolve(json));
    await bodies.fetch('k2', acme, () => Promise.resolve(json));
    expect(bodies.size).toBe(2);
    expect(bodies.heldBytes).toBe(2 * Buffer.byteLength(json) + 'k1'.length + 'k2'.length);
    bodies.clear();
    expect(bodies.size).toBe(0);
    expect(bodies.held('k1')).toBeUndefined();
  });
});
