import { CallActivity } from './call-activity';

describe('CallActivity', () => {
  it('counts calls and errors per tenant and minute, and forgets old minutes', () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const activity = CallActivity.withClock(3, () => now);
    activity.record('acme', false);
    activity.record('acme', true);
    activity.record('globex', false);
    now += 60_000;
    activity.record('acme', false);
    expect(activity.recent('acme').map((b) => [b.calls, b.errors])).toEqual([
      [0, 0],
      [2, 1],
      [1, 0],
    ]);
    expect(activity.recent('globex').map((b) => b.calls)).toEqual([0, 1, 0]);
    expect(activity.recent('initech').every((b) => b.calls === 0)).toBe(true);
    now += 5 * 60_000;
    activity.record('acme', true);
    expect(activity.recent('acme').map((b) => [b.calls, b.errors])).toEqual([
      [0, 0],
      [0, 0],
      [1, 1],
    ]);
  });
});
