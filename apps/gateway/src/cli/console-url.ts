import { loadSettings } from '../config/gateway.config';
import { parseTokenArgs, runScript, signToken } from './token-request';

/**
 * `npm run --silent console-url -- --tenant acme --user ada --roles admin,tool_reviewer
 *  [--claim region=west] [--ttl 3600] [--base http://127.0.0.1:3000]` prints the console's
 * address with a signed token in the fragment (`#token=...`): browsers never send the fragment
 * to the server, so the token is in no request line and no access log.
 */
async function main(): Promise<void> {
  const request = parseTokenArgs(
    process.argv.slice(2),
    'usage: console-url --tenant T --user U [--roles a,b] [--claim name=value] [--ttl seconds] [--base URL]',
    true,
  );
  const settings = loadSettings();
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const base = request.base ?? `http://${host.includes(':') ? `[${host}]` : host}:${settings.port}`;
  const token = await signToken(settings, request);
  process.stdout.write(`${base}/console/#token=${token}\n`);
}

runScript(main);
