import { currentRequest } from '../../pipeline/request-context';

/** `_meta["gateway/cache"]: "no-cache"` on tools/call: the caller wants rows read now. */
export const NO_CACHE_META_KEY = 'gateway/cache';

/** Marks the current request as wanting fresh rows when the call's `_meta` asks for it. */
export function noteCachePreference(params: unknown): void {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const ctx = currentRequest();
  if (ctx && meta?.[NO_CACHE_META_KEY] === 'no-cache') ctx.noCache = true;
}
