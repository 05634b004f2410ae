import { ConfigError, flagOn, integer, url } from './env';
import type { Env } from './env';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Logs: LOG_LEVEL, LOG_FORMAT. */
export interface LogSettings {
  level: LogLevel;
  /** json lines, or pretty (development) */
  format: 'json' | 'pretty';
}

/** Prometheus metrics: METRICS_*. */
export interface MetricsSettings {
  /** METRICS_ENABLED=0: nothing is recorded and /metrics answers 404 */
  enabled: boolean;
  /** when set, GET /metrics needs `Authorization: Bearer <token>` */
  token: string | undefined;
  /** when set, /metrics is served on this port only (not on the API port) */
  port: number | undefined;
}

/** OpenTelemetry spans: OTEL_*. */
export interface TracingSettings {
  /** OTLP/HTTP collector base URL; unset: spans are not exported */
  otlpEndpoint: string | undefined;
  serviceName: string;
}

export function logSettings(env: Env): LogSettings {
  const level = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${level}"`);
  const format = env.LOG_FORMAT || 'json';
  if (format !== 'json' && format !== 'pretty')
    throw new ConfigError(`LOG_FORMAT must be json or pretty; got "${format}"`);
  return { level, format };
}

export function metricsSettings(env: Env): MetricsSettings {
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < 16)
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  const port = env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 1, 65535) : undefined;
  return { enabled: flagOn(env, 'METRICS_ENABLED'), token, port };
}

export function tracingSettings(env: Env): TracingSettings {
  return {
    otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    serviceName: env.OTEL_SERVICE_NAME || 'report-tool-gateway',
  };
}
