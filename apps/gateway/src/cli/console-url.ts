import { SignJWT } from 'jose';
import { signingSecret } from '../auth/signing-key';
import { loadSettings } from '../config/gateway.config';

/**
 * `npm run --silent console-url -- --tenant acme --user ada --roles admin,tool_reviewer
 *  [--claim region=west] [--ttl 3600] [--base http://127.0.0.1:3000]` prints the console's
 * address with a signed token in the fragment (`#token=...`): browsers never send the fragment
 * to the server, so the token is in no request line and no access log.
 */
interface Request {
  tenant?: string;
  user?: string;
  roles: string[];
  claims: Record<string, string>;
  ttlSeconds: number;
  base?: string;
}

function parseArgs(argv: string[]): Required<Omit<Request, 'base'>> & { base?: string } {
  const request: Request = { roles: [], claims: {}, ttlSeconds: 3600 };
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
        request.claims[value.slice(0, eq)] = value.slice(eq + 1);
        break;
      }
      case '--ttl':
        request.ttlSeconds = Number(value);
        if (!Number.isInteger(request.ttlSeconds) || request.ttlSeconds <= 0)
          throw new Error('--ttl takes a positive number of seconds');
        break;
      case '--base':
        request.base = value.replace(/\/+$/, '');
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  if (!request.tenant || !request.user)
    throw new Error(
      'usage: console-url --tenant T --user U [--roles a,b] [--claim name=value] [--ttl seconds] [--base URL]',
    );
  return request as Required<Omit<Request, 'base'>> & { base?: string };
}

async function main(): Promise<void> {
  const request = parseArgs(process.argv.slice(2));
  const settings = loadSettings();
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
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const base = request.base ?? `http://${host.includes(':') ? `[${host}]` : host}:${settings.port}`;
  const token = await jwt.sign(signingSecret(settings));
  process.stdout.write(`${base}/console/#token=${token}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
