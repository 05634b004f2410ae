import type { WriteStream } from 'node:fs';
import { namesOf, soakReport } from './gateway-client';
import type { GatewayClient } from './gateway-client';
import { CONTEXTS, FORMATS, GRACE_MS, LISTERS, root } from './model';
import type { CatalogModel, Recorder, Who } from './model';

/** What each lister sees of the demo catalog, by `user|format|context`. */
export async function readBaseline(gw: GatewayClient): Promise<Map<string, string[]>> {
  const baseline = new Map<string, string[]>();
  for (const w of LISTERS)
    for (const format of FORMATS)
      for (const context of CONTEXTS) {
        const r = await gw.list(w, format, context);
        if (r.status !== 200) throw new Error(`baseline list ${r.status}`);
        baseline.set(`${w.user}|${format}|${context}`, namesOf(format, r.json).sort());
      }
  return baseline;
}

/**
 * Soak reports are category sales: which listers/contexts see them is read with a probe
 * report, not assumed. Returns the `user|context` pairs that see it.
 */
export async function probeSoakVisibility(gw: GatewayClient): Promise<Set<string>> {
  const probe = 'soak_probe';
  const added = await gw.http(root, 'PUT', `/v1/admin/reports/${probe}`, soakReport('probe'));
  if (added.status !== 201) throw new Error('could not add the probe report');
  const seesSoak = new Set<string>();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await gw.http(root, 'GET', '/v1/tools?format=mcp');
    if (namesOf('mcp', r.json).includes(`query_report_${probe}`)) break;
    if (Date.now() > deadline) throw new Error('the probe report never showed up');
    await new Promise((res) => setTimeout(res, 100));
  }
  for (const w of LISTERS)
    for (const context of CONTEXTS) {
      const r = await gw.list(w, 'mcp', context);
      if (namesOf('mcp', r.json).includes(`query_report_${probe}`))
        seesSoak.add(`${w.user}|${context}`);
    }
  await gw.http(root, 'DELETE', `/v1/admin/reports/${probe}`);
  return seesSoak;
}

/** Classes an answer: ok, a wrong or stale list, a clear 503 in the Postgres pause, a status. */
export class Judge {
  constructor(
    private readonly baseline: Map<string, string[]>,
    readonly seesSoak: Set<string>,
    private readonly model: CatalogModel,
    private readonly rec: Recorder,
    private readonly log: WriteStream,
  ) {}

  list(w: Who, format: string, context: string, names: string[], t0: number, t1: number) {
    const soak = new Set(names.filter((n) => n.startsWith('query_report_soak_')));
    const rest = names.filter((n) => !n.startsWith('query_report_soak_')).sort();
    const base = this.baseline.get(`${w.user}|${format}|${context}`)!;
    if (rest.length !== base.length || rest.some((n, i) => n !== base[i])) return 'wrong_list';
    const expectSoak = this.seesSoak.has(`${w.user}|${context}`);
    if (!expectSoak) return soak.size === 0 ? 'ok' : 'wrong_list';
    return this.model.matches(soak, t0 - GRACE_MS, t1) ? 'ok' : 'stale_list';
  }

  /**
   * The verdict of a list (`list`, and a log line with what the model held when the list is
   * not right), to give once the model is final for `t1` (see `Timed`). Made here, not where
   * the list was read, so it holds only the names, never the response.
   */
  verdict(
    via: string,
    w: Who,
    format: string,
    context: string,
    names: string[],
    t0: number,
    t1: number,
  ): () => string {
    return () => {
      const verdict = this.list(w, format, context, names, t0, t1);
      if (verdict !== 'ok') {
        const soak = names.filter((n) => n.startsWith('query_report_soak_')).sort();
        this.log.write(
          `[soak] ${verdict}: ${via} list at ${t0}-${t1} ms, ${w.user}|${format}|${context} saw [${soak.join(' ')}]; model: ${this.model.describe(t0 - GRACE_MS, t1)}\n`,
        );
      }
      return verdict;
    };
  }

  status(status: number, json: unknown, t0: number): string {
    if (status >= 500) {
      // a clear, coded 503 while Postgres is paused: from a replica (DATA_UNAVAILABLE) or
      // from HAProxy when no replica is ready (SERVICE_UNAVAILABLE)
      const code = (json as { error?: { code?: string } })?.error?.code ?? '';
      return status === 503 &&
        ['DATA_UNAVAILABLE', 'DATABASE_UNAVAILABLE', 'SERVICE_UNAVAILABLE'].includes(code) &&
        this.rec.inPause(t0, this.rec.now())
        ? '503_unavailable_in_pause'
        : `${status}`;
    }
    if (status >= 400) return `${status}`;
    return 'ok';
  }
}
