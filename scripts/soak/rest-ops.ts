import type { GatewayClient } from './gateway-client';
import { namesOf } from './gateway-client';
import type { Judge } from './judge';
import { CONTEXTS, DEMO_CALLS, FORMATS, LISTERS, root } from './model';
import type { Recorder } from './model';
import { pick } from './timed';
import type { Timed } from './timed';

/** The REST side of the traffic: tool lists of any lister, and calls of the demo reports. */
export class RestOps {
  constructor(
    private readonly gw: GatewayClient,
    private readonly rec: Recorder,
    private readonly judge: Judge,
    private readonly timed: Timed,
  ) {}

  list(): Promise<void> {
    return this.timed.run('rest_list', async () => {
      const w = pick(LISTERS);
      const format = pick(FORMATS);
      const context = pick(CONTEXTS);
      const t0 = this.rec.now();
      const r = await this.gw.list(w, format, context);
      const cls = this.judge.status(r.status, r.json, t0);
      if (cls !== 'ok') return { status: r.status, cls, detail: JSON.stringify(r.json) };
      const t1 = this.rec.now();
      // the verdict keeps only the names, never the response
      const judge = this.judge.verdict(
        `REST ${r.by}`,
        w,
        format,
        context,
        namesOf(format, r.json),
        t0,
        t1,
      );
      return { status: r.status, cls: 'ok', judge, answeredAt: t1 };
    });
  }

  call(): Promise<void> {
    return this.timed.run('rest_call', async () => {
      const [report, args] = pick(DEMO_CALLS);
      const t0 = this.rec.now();
      const r = await this.gw.http(root, 'POST', `/v1/tools/query_report_${report}/call`, {
        arguments: args,
      });
      const cls = this.judge.status(r.status, r.json, t0);
      if (cls !== 'ok') return { status: r.status, cls, detail: JSON.stringify(r.json) };
      const body = r.json as { is_error: boolean; error?: { code: string } };
      if (!body.is_error) return { status: r.status, cls: 'ok' };
      const code = body.error?.code ?? 'UNKNOWN';
      return {
        detail: JSON.stringify(body.error),
        status: r.status,
        cls:
          code === 'DATA_UNAVAILABLE' && this.rec.inPause(t0, this.rec.now())
            ? 'tool_data_unavailable_in_pause'
            : `tool_error:${code}`,
      };
    });
  }
}
