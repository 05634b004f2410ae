import { loadSettings } from '../config/gateway.config';
import { parseTokenArgs, runScript, signToken } from './token-request';

/**
 * `npm run --silent token -- --tenant acme --user alice --roles analyst [--claim region=west]
 *  [--ttl 3600]` prints a signed token and nothing else.
 */
async function main(): Promise<void> {
  const request = parseTokenArgs(
    process.argv.slice(2),
    'usage: token --tenant T --user U [--roles a,b] [--claim name=value] [--ttl seconds]',
  );
  const settings = loadSettings();
  if (request.ttlSeconds > settings.auth.maxTokenAgeSeconds)
    throw new Error(
      `--ttl ${request.ttlSeconds} is longer than the gateway accepts (AUTH_MAX_TOKEN_AGE_SECONDS=${settings.auth.maxTokenAgeSeconds})`,
    );
  process.stdout.write(`${await signToken(settings, request)}\n`);
}

runScript(main);
