import { CatalogFreshness } from './catalog-freshness';

describe('CatalogFreshness', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-30T12:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('trusts a catalog read less than staleAfterMs ago while LISTEN is down, then asks again', () => {
    const freshness = new CatalogFreshness(1000);
    const checkedAt = Date.now();
    jest.advanceTimersByTime(999);
    expect(freshness.trusted(checkedAt)).toBe(true);
    jest.advanceTimersByTime(1);
    expect(freshness.trusted(checkedAt)).toBe(false);
  });

  it('trusts it for as long as LISTEN is up, however old', () => {
    const freshness = new CatalogFreshness(1000);
    const checkedAt = Date.now();
    freshness.listening = true;
    jest.advanceTimersByTime(24 * 3600 * 1000);
    expect(freshness.trusted(checkedAt)).toBe(true);
    freshness.listening = false;
    expect(freshness.trusted(checkedAt)).toBe(false);
  });

  it('with staleAfterMs 0 never trusts without LISTEN', () => {
    expect(new CatalogFreshness(0).trusted(Date.now())).toBe(false);
  });
});
