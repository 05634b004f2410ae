/** Every limit of the ops scenarios enabled and never reached. */
export const OPS_LIMITS = {
  LIMIT_USER_CALLS_PER_MIN: '1000000',
  LIMIT_TENANT_CALLS_PER_MIN: '10000000',
  LIMIT_TENANT_CONCURRENT_QUERIES: '1000',
};

/** What "on" means: access log lines at info, metrics, and every limit enabled (never reached). */
export const OPS_ON = { LOG_LEVEL: 'info', ...OPS_LIMITS };

/** "off": logging silent, metrics off (records nothing, /metrics 404), no limits. */
export const OPS_OFF = { LOG_LEVEL: 'silent', METRICS_ENABLED: '0' };
