import { ConnectionShares } from './connection-shares';

describe('ConnectionShares: one tenant never takes what another needs', () => {
  it('refuses past the tenant share while another tenant still fits', () => {
    const shares = new ConnectionShares(12, 6);
    expect(shares.refusal('acme', 6)).toBeUndefined();
    shares.reserve('acme', 6);
    expect(shares.refusal('acme', 1)).toMatch(/your tenant's share of 6/);
    expect(shares.refusal('globex', 5)).toBeUndefined();
    shares.reserve('globex', 5);
    expect(shares.inUse).toBe(11);
  });

  it('refuses past the instance budget, and frees what a closed pool held', () => {
    const shares = new ConnectionShares(10, 6);
    shares.reserve('acme', 6);
    shares.reserve('globex', 4);
    expect(shares.refusal('initech', 1)).toMatch(/budget of 10/);
    shares.reserve('acme', -6);
    expect(shares.refusal('initech', 5)).toBeUndefined();
    expect(shares.inUse).toBe(4);
  });
});
