import { SignJWT } from 'jose';
import { signingSecret } from '../auth/signing-key';
import type { GatewaySettings } from '../config/gateway.config';

/** Who a signed token speaks for, as the `token` and `console-url` scripts take it. */
export interface TokenRequest {
  tenant: string;
  user: string;
  roles: string[];
  claims: Record<string, string>;
  ttlSeconds: number;
  /** only where the script takes `--base` */
  base?: string;
}

/**
 * Parses `--tenant T --user U [--roles a,b] [--claim name=value] [--ttl seconds]`, plus
 * `--base URL` when `withBase`; throws `usage` when tenant or user is missing.
 */
export function parseTokenArgs(argv: string[], usage: string, withBase = false): TokenRequest {
  const request: Partial<TokenRequest> = { roles: [], claims: {}, ttlSeconds: 3600 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--base' && withBase) request.base = value.replace(/\/+$/, '');
    else applyOption(request, flag, value);
  }
  if (!request.tenant || !request.user) throw new Error(usage);
  return request as TokenRequest;
}

function applyOption(request: Partial<TokenRequest>, flag: string, value: string): void {
  switch (flag) {
    case '--tenant':
      request.tenant = value;
      break;
    case '--user':
      request.user = value;
      break;
    case '--roles':
      request.roles = value
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean);
      break;
    case '--claim': {
      const eq = value.indexOf('=');
      if (eq <= 0) throw new Error(`--claim takes name=value; got "${value}"`);
      request.claims![value.slice(0, eq)] = value.slice(eq + 1);
      break;
    }
    case '--ttl':
      request.ttlSeconds = Number(value);
      if (!Number.isInteger(request.ttlSeconds) || request.ttlSeconds <= 0)
        throw new Error('--ttl takes a positive number of seconds');
      break;
    default:
      throw new Error(`unknown option ${flag}`);
  }
}

/** The HS256 token the gateway accepts for this request (reserved claim names dropped). */
export async function signToken(settings: GatewaySettings, request: TokenRequest): Promise<string> {
  const reserved = new Set(['tenant', 'sub', 'roles', 'exp', 'iat', 'iss', 'aud']);
  const claims = Object.fromEntries(
    Object.entries(request.claims).filter(([k]) => !reserved.has(k)),
  );
  let jwt = new SignJWT({ ...claims, tenant: request.tenant, roles: request.roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(request.user)
    .setIssuedAt()
    .setExpirationTime(`${request.ttlSeconds}s`);
  if (settings.auth.issuer) jwt = jwt.setIssuer(settings.auth.issuer);
  if (settings.auth.audience) jwt = jwt.setAudience(settings.auth.audience);
  return jwt.sign(signingSecret(settings));
}

/** Runs a script's main: an error is one line on stderr and exit code 2. */
export function runScript(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  });
}
