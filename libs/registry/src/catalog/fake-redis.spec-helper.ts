import type Redis from 'ioredis';

/**
 * The part of ioredis the shared cache uses, in memory: `status` and the event handlers are
 * the test's to drive, `failing` makes every command reject, and `expiries` records the TTL
 * each key was set with.
 */
export class FakeRedis {
  status = 'ready';
  failing = false;
  readonly values = new Map<string, string>();
  readonly expiries = new Map<string, number>();
  readonly commands: string[] = [];
  private readonly handlers = new Map<string, Array<(arg?: unknown) => void>>();
  private readonly setWaiters: Array<(key: string) => void> = [];

  /** Resolves with the key of the next value written (for writes made in the background). */
  nextSet(): Promise<string> {
    return new Promise((resolve) => this.setWaiters.push(resolve));
  }

  on(event: string, handler: (arg?: unknown) => void): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
    return this;
  }

  emit(event: string, arg?: unknown): void {
    for (const handler of this.handlers.get(event) ?? []) handler(arg);
  }

  get(key: string): Promise<string | null> {
    return this.run(`get ${key}`, () => this.values.get(key) ?? null);
  }

  set(key: string, value: string, ex: 'EX', seconds: number): Promise<'OK'> {
    return this.run(`set ${key}`, () => {
      if (ex !== 'EX') throw new Error('the fake only knows EX');
      this.values.set(key, value);
      this.expiries.set(key, seconds);
      for (const resolve of this.setWaiters.splice(0)) resolve(key);
      return 'OK' as const;
    });
  }

  del(key: string): Promise<number> {
    return this.run(`del ${key}`, () => (this.values.delete(key) ? 1 : 0));
  }

  disconnect(): void {
    this.status = 'end';
  }

  asRedis(): Redis {
    return this as unknown as Redis;
  }

  private run<T>(command: string, fn: () => T): Promise<T> {
    this.commands.push(command);
    if (this.failing) return Promise.reject(new Error('ECONNRESET'));
    return Promise.resolve(fn());
  }
}
