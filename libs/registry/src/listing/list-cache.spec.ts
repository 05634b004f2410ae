import { ListCache } from './list-cache';

/** A build the test finishes when it wants, counting how often it ran. */
function gated(value: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let runs = 0;
  const build = async () => {
    runs += 1;
    await gate;
    return { value };
  };
  return { build, open: () => open(), runs: () => runs };
}

describe('ListCache', () => {
  it('builds a missing list once however many callers miss it together', async () => {
    const lists = new ListCache<{ value: string }>({ max: 10 });
    const { build, open, runs } = gated('a');
    const asked = [lists.fetch('k', build), lists.fetch('k', build), lists.fetch('k', build)];
    open();
    const answers = await Promise.all(asked);
    expect(runs()).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(lists.get('k')).toBe(answers[0]);
  });

  it('answers a held list from memory without building', async () => {
    const lists = new ListCache<{ value: string }>({ max: 10 });
    const held = await lists.fetch('k', () => Promise.resolve({ value: 'a' }));
    const { build, runs } = gated('b');
    await expect(lists.fetch('k', build)).resolves.toBe(held);
    expect(runs()).toBe(0);
  });

  it('keeps nothing of a failed build, and builds again on the next miss', async () => {
    const lists = new ListCache<{ value: string }>({ max: 10 });
    await expect(lists.fetch('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(lists.get('k')).toBeUndefined();
    await expect(lists.fetch('k', () => Promise.resolve({ value: 'a' }))).resolves.toEqual({
      value: 'a',
    });
  });

  it('does not keep a build that clear() overtook, but still answers its callers', async () => {
    const lists = new ListCache<{ value: string }>({ max: 10 });
    const { build, open } = gated('old');
    const asked = lists.fetch('k', build);
    lists.clear();
    open();
    await expect(asked).resolves.toEqual({ value: 'old' });
    expect(lists.get('k')).toBeUndefined();
  });

  it('holds at most max lists and maxSize bytes', async () => {
    const lists = new ListCache<Buffer>({ max: 2, maxSize: 10, sizeOf: (b) => b.length });
    for (const k of ['a', 'b', 'c']) await lists.fetch(k, () => Promise.resolve(Buffer.from(k)));
    expect(lists.size).toBe(2);
    expect(lists.get('a')).toBeUndefined();
    await lists.fetch('big', () => Promise.resolve(Buffer.alloc(10)));
    expect(lists.size).toBe(1);
  });
});
