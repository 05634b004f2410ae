/**
 * The connections one instance holds to tenants' sources (issue #37), counted as the max of every
 * open pool: all of them within the instance's budget, and each tenant's within its share, so
 * one tenant's pools can never take what another tenant's sources need.
 */
export class ConnectionShares {
  private total = 0;
  private readonly byTenant = new Map<string, number>();

  constructor(
    private readonly budget: number,
    private readonly tenantShare: number,
  ) {}

  get inUse(): number {
    return this.total;
  }

  /** Why a pool of `size` for the tenant does not fit now, or undefined when it does. */
  refusal(tenantId: string, size: number): string | undefined {
    if ((this.byTenant.get(tenantId) ?? 0) + size > this.tenantShare)
      return `your tenant's share of ${this.tenantShare} connections on this instance is in use`;
    if (this.total + size > this.budget)
      return `this instance's connection budget of ${this.budget} is in use`;
    return undefined;
  }

  /** Counts `n` more connections (a negative `n`: a pool closed) for the tenant. */
  reserve(tenantId: string, n: number): void {
    this.total += n;
    const held = (this.byTenant.get(tenantId) ?? 0) + n;
    if (held > 0) this.byTenant.set(tenantId, held);
    else this.byTenant.delete(tenantId);
  }
}
