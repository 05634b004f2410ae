import { ADMISSION_SLICE_MS, inSlices } from './slices';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('inSlices', () => {
  let now = 0;
  let clock: jest.SpyInstance;
  beforeEach(() => {
    now = 0;
    clock = jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => clock.mockRestore());

  it('works every item once, in order, and reports progress up to the total', async () => {
    const items = range(500);
    const done: number[] = [];
    const progress: number[] = [];
    await inSlices(items, (i) => done.push(i), { progress: (n) => progress.push(n) });
    expect(done).toEqual(items);
    expect(progress.at(-1)).toBe(items.length);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('yields to the event loop between slices, and not after the last', async () => {
    const items = range(50 + 100 + 1);
    const progress: number[] = [];
    const yields = await inSlices(items, () => undefined, { progress: (n) => progress.push(n) });
    // batches double while each slice finishes in time: 50, then 100, then the rest
    expect(progress).toEqual([50, 150, 151]);
    expect(yields).toBe(progress.length - 1);
  });

  it('cuts a slice that holds the loop longer than ADMISSION_SLICE_MS, and shrinks the next batch', async () => {
    const items = range(20);
    const progress: number[] = [];
    const slow = 3;
    await inSlices(
      items,
      () => {
        now += ADMISSION_SLICE_MS / slow + 0.01;
      },
      { progress: (n) => progress.push(n) },
    );
    // each slice stops at the first item past the bound: `slow` items per slice
    expect(progress[0]).toBe(slow);
    expect(progress.at(-1)).toBe(items.length);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]! - progress[i - 1]!).toBeLessThanOrEqual(slow);
  });

  it('preloads each batch before working on it', async () => {
    const events: string[] = [];
    await inSlices(range(60), (i) => events.push(`work ${i}`), {
      preload: (batch) => {
        events.push(`preload ${batch[0]}-${batch.at(-1)}`);
        return Promise.resolve();
      },
    });
    expect(events[0]).toBe('preload 0-49');
    expect(events[51]).toBe('preload 50-59');
    expect(events.filter((e) => e.startsWith('work'))).toHaveLength(60);
  });

  it('stops before the next slice once it is no longer alive', async () => {
    let alive = true;
    const done: number[] = [];
    await inSlices(range(200), (i) => done.push(i), {
      alive: () => alive,
      progress: () => (alive = false),
    });
    expect(done).toEqual(range(50));
  });

  it('works items added while it runs', async () => {
    const items = range(60);
    const done: number[] = [];
    let grown = false;
    await inSlices(items, (i) => done.push(i), {
      progress: () => {
        if (!grown) items.push(60, 61);
        grown = true;
      },
    });
    expect(done).toEqual(range(62));
  });

  it('does nothing for no items', async () => {
    const work = jest.fn();
    await expect(inSlices([], work)).resolves.toBe(0);
    expect(work).not.toHaveBeenCalled();
  });
});
