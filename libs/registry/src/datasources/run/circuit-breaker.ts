/** What a breaker says about the next call. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * One endpoint's circuit breaker: after `failures` connection failures in a row it opens, and
 * calls fail at once (no connect attempt) for `cooldownMs`; then one trial call goes through
 * (half-open): its success closes the breaker, its failure opens it again. The clock is injected
 * so specs run without waiting.
 */
export class CircuitBreaker {
  private failuresInARow = 0;
  private openedAt: number | undefined;
  private trialRunning = false;
  lastError: string | undefined;

  constructor(
    private readonly failures: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.cooldownMs ? 'half-open' : 'open';
  }

  /** ms until a trial call may go through (0 when calls may go now) */
  retryInMs(): number {
    if (this.openedAt === undefined) return 0;
    return Math.max(0, this.openedAt + this.cooldownMs - this.now());
  }

  /** Whether a call may go now; in half-open, only one trial at a time. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialRunning) return false;
    this.trialRunning = true;
    return true;
  }

  succeeded(): void {
    this.failuresInARow = 0;
    this.openedAt = undefined;
    this.trialRunning = false;
  }

  failed(message: string): void {
    this.lastError = message;
    this.failuresInARow++;
    if (this.trialRunning || this.failuresInARow >= this.failures) this.openedAt = this.now();
    this.trialRunning = false;
  }
}
