import type { HttpClient } from './http';

/** The gateway's /metrics counters, by full series name (e.g. `x_total{level="l1"}`). */
export async function readMetrics(client: HttpClient): Promise<Map<string, number>> {
  const res = await client.ok('/metrics');
  const series = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

/** Which series grew between two readings, and by how much. */
export function grown(
  before: Map<string, number>,
  after: Map<string, number>,
): Map<string, number> {
  const diff = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) diff.set(k, d);
  }
  return diff;
}
