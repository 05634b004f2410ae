import { SignJWT } from 'jose';
import { signingSecret } from '../auth/signing-key';
import { loadSettings } from '../config/gateway.config';

/**
 * `npm run --silent token -- --tenant acme --user alice --roles analyst [--claim region=west]
 *  [--ttl 3600]` prints a signed token and nothing else.
 */
interface TokenRequest {
  tenant: string;
  user: string;
  roles: string[];
  claims: Record<string, string>;
  ttlSeconds: number;
}

function parseArgs(argv: string[]): TokenRequest {
  const request: Partial<TokenRequest> = { roles: [], claims: {}, ttlSeconds: 3600 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
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
  if (!request.tenant || !request.user)
    throw new Error(
      'usage: token --tenant T --user U [--roles a,b] [--claim name=value] [--ttl seconds]',
    );
  return request as TokenRequest;
}

async function main(): Promise<void> {
  const request = parseArgs(process.argv.slice(2));
  const settings = loadSettings();
  if (request.ttlSeconds > settings.auth.maxTokenAgeSeconds)
    throw new Error(
      `--ttl ${request.ttlSeconds} is longer than the gateway accepts (AUTH_MAX_TOKEN_AGE_SECONDS=${settings.auth.maxTokenAgeSeconds})`,
    );
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
  process.stdout.write(`${await jwt.sign(signingSecret(settings))}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
