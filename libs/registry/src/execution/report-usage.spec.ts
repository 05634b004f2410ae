import { histogramQuantile, LATENCY_BOUNDS_MS, latencyBucket } from './usage-figures';

describe('usage latency histogram', () => {
  it('puts a call in the smallest bucket whose bound it fits under, the rest in the last', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(5)).toBe(0);
    expect(latencyBucket(5.01)).toBe(1);
    expect(latencyBucket(10_000)).toBe(LATENCY_BOUNDS_MS.length - 1);
    expect(latencyBucket(60_000)).toBe(LATENCY_BOUNDS_MS.length);
  });

  it('reads p50 and p95 as the bound of the bucket the rank falls in; none without calls', () => {
    const buckets = new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
    expect(histogramQuantile(buckets, 0.5)).toBeNull();
    buckets[latencyBucket(3)] = 90; // 90 calls of at most 5 ms
    buckets[latencyBucket(700)] = 10; // 10 calls of at most 1 s
    expect(histogramQuantile(buckets, 0.5)).toBe(5);
    expect(histogramQuantile(buckets, 0.9)).toBe(5);
    expect(histogramQuantile(buckets, 0.95)).toBe(1000);
    buckets[LATENCY_BOUNDS_MS.length] = 1000; // past every bound: read as the largest
    expect(histogramQuantile(buckets, 0.95)).toBe(10_000);
  });
});
