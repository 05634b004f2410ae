import type { CatalogModel, Recorder } from './model';

export interface Outcome {
  status: number;
  cls: string;
  detail?: string;
  /** a list's verdict, given once the catalog model is final for `answeredAt` */
  judge?: () => string;
  answeredAt?: number;
}

export const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

/**
 * Runs and records one operation. A list is judged once the catalog model is final for the
 * moment it answered: at once when no admin write is in flight, else after that write's
 * answer (its commit may already have been visible to the list). Verdicts waiting are few
 * and hold only the names listed, so a long run's memory stays flat (`judgeSettled`).
 */
export class Timed {
  private judgements: Array<{ answeredAt: number; judge: () => void }> = [];

  constructor(
    private readonly rec: Recorder,
    private readonly model: CatalogModel,
  ) {}

  async run(op: string, fn: () => Promise<Outcome>): Promise<void> {
    const rec = this.rec;
    const t = rec.now();
    const started = performance.now();
    try {
      const { status, cls, detail, judge, answeredAt } = await fn();
      const sample = rec.add({ t, ms: performance.now() - started, op, status, cls }, detail);
      if (judge)
        this.judgements.push({
          answeredAt: answeredAt ?? rec.now(),
          judge: () => {
            sample.cls = judge();
            rec.example(sample.cls, `${op} at ${t} ms`);
          },
        });
    } catch (err) {
      this.failed(op, t, started, err);
    }
    this.judgeSettled();
  }

  /** Judges the lists the model is final for; the others wait for the write in flight. */
  judgeSettled(): void {
    if (this.judgements.length === 0) return;
    const waiting: typeof this.judgements = [];
    for (const j of this.judgements)
      if (this.model.settledAt(j.answeredAt)) j.judge();
      else waiting.push(j);
    this.judgements = waiting;
  }

  /** The end of the run: no write is in flight any more, so every list is judged. */
  judgeAll(): void {
    for (const { judge } of this.judgements) judge();
    this.judgements = [];
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
