import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now = 0;
  const breaker = () => new CircuitBreaker(2, 1000, () => now);
  beforeEach(() => {
    now = 0;
  });

  it('opens after the failures in a row, fails calls for the cooldown, then lets one trial through', () => {
    const b = breaker();
    expect(b.tryAcquire()).toBe(true);
    b.failed('connection refused');
    expect(b.state).toBe('closed');
    b.failed('connection refused');
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBe(false);
    expect(b.retryInMs()).toBe(1000);
    now = 1000;
    expect(b.state).toBe('half-open');
    expect(b.tryAcquire()).toBe(true);
    expect(b.tryAcquire()).toBe(false); // one trial at a time
    b.succeeded();
    expect(b.state).toBe('closed');
    expect(b.lastError).toBe('connection refused');
  });

  it('a failed trial opens it again for a whole cooldown', () => {
    const b = breaker();
    b.failed('x');
    b.failed('x');
    now = 1500;
    expect(b.tryAcquire()).toBe(true);
    b.failed('still down');
    expect(b.state).toBe('open');
    expect(b.retryInMs()).toBe(1000);
  });

  it('a success resets the count of failures in a row', () => {
    const b = breaker();
    b.failed('x');
    b.succeeded();
    b.failed('x');
    expect(b.state).toBe('closed');
  });
});
