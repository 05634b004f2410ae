import net from 'node:net';

/**
 * Addresses that are never "public": loopback, this-network, RFC 1918, carrier-grade NAT,
 * link-local (cloud metadata lives at 169.254.169.254), multicast and reserved, and their IPv6
 * counterparts (IPv4-mapped addresses are unwrapped before they are checked).
 */
const NOT_PUBLIC: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'],
  ['::', 96, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/**
 * Where tenant data sources may point (DATASOURCE_ALLOWED_NETWORKS, issue #37): a list of CIDRs
 * and the word `public` (every public unicast address). The default is `public` alone. An
 * address is allowed when it is in one of the listed networks; node's own `net.BlockList` does
 * the matching.
 */
export class AllowedNetworks {
  private readonly listed = new net.BlockList();
  private readonly notPublic = new net.BlockList();
  private readonly publicAllowed: boolean;

  constructor(readonly spec: readonly string[]) {
    this.publicAllowed = spec.includes('public');
    for (const [address, prefix, family] of NOT_PUBLIC)
      this.notPublic.addSubnet(address, prefix, family);
    for (const entry of spec) {
      if (entry === 'public') continue;
      const cidr = parseCidr(entry);
      if (!cidr) throw new Error(`"${entry}" is not a CIDR (a.b.c.d/n or an IPv6 prefix)`);
      this.listed.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
  }

  /** Parses the env's text: comma-separated CIDRs and `public`; empty means `public`. */
  static parse(text: string | undefined): AllowedNetworks {
    const entries = (text ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return new AllowedNetworks(entries.length > 0 ? entries : ['public']);
  }

  /** Whether a resolved IP address may be connected to. */
  allows(address: string): boolean {
    const ip = unmapped(address);
    const family = net.isIPv4(ip) ? 'ipv4' : net.isIPv6(ip) ? 'ipv6' : undefined;
    if (!family) return false;
    if (this.listed.check(ip, family)) return true;
    return this.publicAllowed && !this.notPublic.check(ip, family);
  }
}

/** `::ffff:127.0.0.1` (and its hex form) as the IPv4 address it is. */
export function unmapped(address: string): string {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted && net.isIPv4(dotted[1])) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex && net.isIPv6(lower)) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return address;
}

function parseCidr(
  text: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, bits, ...rest] = text.split('/');
  if (rest.length > 0) return undefined;
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
  if (!family) return undefined;
  const max = family === 'ipv4' ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return undefined;
  return { address, prefix, family };
}
