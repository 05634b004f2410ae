import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** How long one slice of judging may hold the event loop before it yields (ms). */
export const ADMISSION_SLICE_MS = 10;

export interface SliceOptions<T> {
  /** fetches what makes a batch cheap (persisted verdicts) before it is worked on */
  preload?: (batch: readonly T[]) => Promise<void>;
  /** after each slice, with how many items are done so far */
  progress?: (done: number) => void;
  /** false stops the work before the next slice (a newer job replaced this one) */
  alive?: () => boolean;
}

/**
 * Works through `items` (which may grow meanwhile) in slices that hold the event loop at
 * most about ADMISSION_SLICE_MS each; between slices it yields (setImmediate), so other
 * tenants' requests are served while a big set is worked on. Each batch is about as big as
 * the last slice managed (50 to 1,000). Returns how many times it yielded.
 */
export async function inSlices<T>(
  items: readonly T[],
  work: (item: T) => void,
  options: SliceOptions<T> = {},
): Promise<number> {
  let yields = 0;
  let batch = 50;
  for (let i = 0; i < items.length && (options.alive?.() ?? true);) {
    const slice = items.slice(i, i + batch);
    if (options.preload) await options.preload(slice);
    const started = performance.now();
    let done = 0;
    for (const item of slice) {
      work(item);
      done++;
      if (performance.now() - started > ADMISSION_SLICE_MS) break;
    }
    i += done;
    options.progress?.(i);
    batch = done === slice.length ? Math.min(batch * 2, 1000) : Math.max(1, done);
    if (i < items.length) {
      await yieldToLoop();
      yields++;
    }
  }
  return yields;
}
