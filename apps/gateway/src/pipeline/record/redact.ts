import type { GatewaySettings } from '../../config/gateway.config';

/** A URL with credentials in it (postgres://user:password@host/db, redis://:pw@host). */
const CONNECTION_STRING = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/@]*@[^\s'"]*/gi;

/**
 * Scrubs what must never reach a client or a log from a message: connection strings and the
 * configured secrets (JWT secret, metrics token, database and Redis passwords). The last
 * line of defence behind messages that are written not to contain them in the first place.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(settings: Pick<GatewaySettings, 'auth' | 'metrics' | 'databaseUrl' | 'redisUrl'>) {
    this.secrets = [
      settings.auth.jwtSecret,
      settings.metrics.token,
      passwordOf(settings.databaseUrl),
      passwordOf(settings.redisUrl),
    ].filter((s): s is string => typeof s === 'string' && s.length >= 4);
  }

  redact(message: string): string {
    let out = message.replace(CONNECTION_STRING, '[connection string]');
    for (const secret of this.secrets) out = out.split(secret).join('[redacted]');
    return out;
  }
}

function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
