import { LATENCY_BOUNDS_MS } from './usage-figures';
import { figuresByTool } from './usage-overview';

const hist = (bucket: number, n: number) => {
  const h = new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
  h[bucket] = n;
  return h;
};

describe('figuresByTool: the usage overview of every report', () => {
  it('sums the hours of each tool and reads p50/p95 from the summed histogram', () => {
    const figures = figuresByTool([
      { tool: 'query_report_a', calls: 90, errors: 10, empty: 8, latency_buckets: hist(0, 90) },
      { tool: 'query_report_a', calls: 10, errors: 0, empty: 0, latency_buckets: hist(6, 10) },
      { tool: 'query_report_b', calls: 2, errors: 2, empty: 0, latency_buckets: hist(1, 2) },
    ]);
    expect(figures.get('query_report_a')).toEqual({
      calls: 100,
      errors: 10,
      error_rate: 0.1,
      empty: 8,
      empty_rate: 8 / 90,
      p50_ms: LATENCY_BOUNDS_MS[0],
      p95_ms: LATENCY_BOUNDS_MS[6],
    });
    // every call failed: no successful call to be empty
    expect(figures.get('query_report_b')).toMatchObject({ error_rate: 1, empty_rate: null });
    expect(figures.has('query_report_c')).toBe(false);
  });
});
