import { loadSettings } from '../../config/gateway.config';
import { metricsAllowed } from '../../health/health.controller';
import { Redactor } from './redact';

const SECRET = 'jwt-secret-that-is-long-enough-0123456789';

describe('Redactor', () => {
  const redactor = new Redactor(
    loadSettings({
      NODE_ENV: 'test',
      AUTH_JWT_SECRET: SECRET,
      METRICS_TOKEN: 'metrics-token-0123456789',
      DATABASE_URL: 'postgres://gw:s3cr%40t-pw@db.internal:5432/gateway',
      REDIS_URL: 'redis://:redis-pw-42@cache:6379',
    }),
  );

  it('removes connection strings, whatever their scheme', () => {
    const out = redactor.redact(
      'connect ECONNREFUSED postgres://gw:s3cr%40t-pw@db.internal:5432/gateway and redis://:redis-pw-42@cache:6379',
    );
    expect(out).toBe('connect ECONNREFUSED [connection string] and [connection string]');
  });

  it('removes the configured secrets wherever they appear', () => {
    expect(redactor.redact(`bad ${SECRET}; token metrics-token-0123456789; pw s3cr@t-pw`)).toBe(
      'bad [redacted]; token [redacted]; pw [redacted]',
    );
    expect(redactor.redact('redis said redis-pw-42')).toBe('redis said [redacted]');
  });

  it('leaves an ordinary message alone', () => {
    const message = 'region must be one of east, west, north, south; got "e"';
    expect(redactor.redact(message)).toBe(message);
  });
});

describe('metricsAllowed', () => {
  it('lets every scrape in without METRICS_TOKEN', () => {
    expect(metricsAllowed(undefined, undefined)).toBe(true);
  });

  it('needs the exact bearer token when one is set', () => {
    const token = 'metrics-token-0123456789';
    expect(metricsAllowed(token, `Bearer ${token}`)).toBe(true);
    expect(metricsAllowed(token, undefined)).toBe(false);
    expect(metricsAllowed(token, `Bearer ${token}x`)).toBe(false);
    expect(metricsAllowed(token, `Basic ${token}`)).toBe(false);
  });
});

describe('operations settings', () => {
  it('reads the limits, with 0 or unset meaning no limit', () => {
    const settings = loadSettings({
      NODE_ENV: 'test',
      LIMIT_USER_CALLS_PER_MIN: '60',
      LIMIT_TENANT_CONCURRENT_QUERIES: '4',
    });
    expect(settings.limits).toEqual({
      userCallsPerMin: 60,
      tenantCallsPerMin: 0,
      tenantConcurrentQueries: 4,
      bodyBytes: 1024 * 1024,
      proposalsPerAuthorPerDay: 0,
      maxConnections: 2048,
      unauthenticatedConnections: 1024,
      headersTimeoutMs: 5000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
      tenantQueueWaitMs: 3000,
    });
  });

  it('keeps tenants fair by default: 3/4 of the pool per tenant (issue #38), 0 turns it off', () => {
    const pool = (env: Record<string, string>) =>
      loadSettings({ NODE_ENV: 'test', ...env }).limits.tenantConcurrentQueries;
    expect(pool({})).toBe(7);
    expect(pool({ DB_POOL_SIZE: '20' })).toBe(15);
    expect(pool({ LIMIT_TENANT_CONCURRENT_QUERIES: '0' })).toBe(0);
  });

  it.each([
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT must be json or pretty'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN must be at least 16 characters'],
    [{ LIMIT_USER_CALLS_PER_MIN: '-1' }, 'LIMIT_USER_CALLS_PER_MIN must be an integer'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://x' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must use'],
    [{ SHUTDOWN_GRACE_MS: 'soon' }, 'SHUTDOWN_GRACE_MS must be an integer'],
    [{ LIMIT_CONNECTIONS: '0' }, 'LIMIT_CONNECTIONS must be an integer'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '10' }, 'HTTP_REQUEST_TIMEOUT_MS must be an integer'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(() => loadSettings({ NODE_ENV: 'test', ...env })).toThrow(message);
  });
});
