/** Reading one environment variable: a typed value, or a ConfigError naming the variable. */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  return bounded(env, name, fallback, min, max, Number.isInteger, 'an integer');
}

export function decimal(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  return bounded(env, name, fallback, min, max, Number.isFinite, 'a number');
}

/** A number in [min, max] of the kind `valid` accepts; empty or unset gives `fallback`. */
function bounded(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
  valid: (value: number) => boolean,
  kind: string,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!valid(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be ${kind} between ${min} and ${max}; got "${raw}"`);
  }
  return value;
}

export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  return urlValue(name, raw, protocols);
}

export function urlValue(name: string, raw: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL; got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}; got "${parsed.protocol}"`);
  }
  return raw;
}

export function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new ConfigError(`${name} must be 1 or 0; got "${raw}"`);
}

/** A switch that is on unless set to 0. */
export function flagOn(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '1') return true;
  if (raw === '0') return false;
  throw new ConfigError(`${name} must be 1 or 0; got "${raw}"`);
}
