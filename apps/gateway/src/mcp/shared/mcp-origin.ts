import type { IncomingHttpHeaders } from 'node:http';

/** Host names that only ever reach this machine: a local client, never a remote page. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Who may call /mcp from a browser (a request with an `Origin`). Non-browser clients send no
 * Origin and are judged by their token alone. A browser request passes when its Origin is
 * local (localhost, 127.0.0.1, [::1], any port), the configured public origin, or listed in
 * MCP_ALLOWED_ORIGINS, *and* its `Host` names a host on the same list: a DNS-rebinding page
 * sends its own host name as both, and the Host check is what refuses it.
 */
export class McpOrigins {
  private readonly origins: Set<string>;
  private readonly hosts: Set<string>;

  constructor(allowedOrigins: readonly string[], publicUrl: string | undefined) {
    const trusted = [...allowedOrigins, ...(publicUrl ? [new URL(publicUrl).origin] : [])];
    this.origins = new Set(trusted);
    this.hosts = new Set(trusted.map((origin) => new URL(origin).hostname));
  }

  /** Why the request is refused, or undefined when it may go on. */
  refusal(headers: IncomingHttpHeaders): string | undefined {
    const origin = headers.origin;
    if (origin === undefined) return undefined;
    if (!this.originAllowed(origin))
      return `origin ${origin} is not allowed; add it to MCP_ALLOWED_ORIGINS`;
    const host = hostnameOf(headers.host);
    if (host === undefined || !(LOCAL_HOSTS.has(host) || this.hosts.has(host)))
      return `host ${headers.host ?? '(none)'} is not this gateway's; set PUBLIC_URL to the address clients use`;
    return undefined;
  }

  private originAllowed(origin: string): boolean {
    if (this.origins.has(origin)) return true;
    const url = parse(origin);
    return (
      url !== undefined &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.origin === origin &&
      LOCAL_HOSTS.has(url.hostname)
    );
  }
}

function parse(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** A Host header's name (lower case), or undefined unless it is a plain `name[:port]`. */
function hostnameOf(host: string | undefined): string | undefined {
  if (host === undefined || !HOST_HEADER.test(host)) return undefined;
  return parse(`http://${host}`)?.hostname;
}
