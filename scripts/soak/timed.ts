import type { Recorder } from './model';

export interface Outcome {
  status: number;
  cls: string;
  detail?: string;
  judge?: () => string;
}

export const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

/**
 * Runs and records one operation. Lists are judged when the run is over (`judgeAll`): an
 * admin write still in flight when a list answered (its commit may already be visible) is
 * then in the model with its window.
 */
export class Timed {
  private readonly judgements: Array<() => void> = [];

  constructor(private readonly rec: Recorder) {}

  async run(op: string, fn: () => Promise<Outcome>): Promise<void> {
    const rec = this.rec;
    const t = rec.now();
    const started = performance.now();
    try {
      const { status, cls, detail, judge } = await fn();
      const sample = rec.add({ t, ms: performance.now() - started, op, status, cls }, detail);
      if (judge)
        this.judgements.push(() => {
          sample.cls = judge();
          rec.example(sample.cls, `${op} at ${t} ms`);
        });
    } catch (err) {
      this.failed(op, t, started, err);
    }
  }

  judgeAll(): void {
    for (const judge of this.judgements) judge();
  }

  private failed(op: string, t: number, started: number, err: unknown): void {
    const rec = this.rec;
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    const message = err instanceof Error ? err.message : String(err);
    let cls = cause
      ? `network:${cause}`
      : `client_error:${message.replace(/[0-9a-f-]{36}/g, '<id>').slice(0, 70)}`;
    // the MCP client reports an HTTP 503 from the load balancer as an exception
    // (the SDK puts the body, not the status, in the message): a 5xx is counted as one
    const is503 = /HTTP 503|SERVICE_UNAVAILABLE|DATA(BASE)?_UNAVAILABLE/.test(message);
    if (is503 && rec.inPause(t, rec.now())) cls = '503_unavailable_in_pause';
    else if (is503) cls = `503:${cls}`;
    const status = is503 ? 503 : /HTTP 5\d\d/.test(message) ? 500 : 0;
    rec.add({ t, ms: performance.now() - started, op, status, cls }, message);
  }
}
