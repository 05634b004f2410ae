import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Few distinct permission sets exist; hashing each once keeps the warm list path cheap. */
const permissionKeys = new LRUCache<string, string>({ max: 10_000 });

/**
 * Callers with the same key see the same tools: it covers the effective roles, which
 * bindable claims the token carries (not their values, which only change rows) and, for
 * users with per-user rules, the user.
 */
export function permissionSetKey(
  roles: readonly string[],
  claimNames: readonly string[],
  user?: string,
): string {
  const material = `roles=${roles.join(',')};claims=${[...claimNames].sort().join(',')};user=${user ?? ''}`;
  let key = permissionKeys.get(material);
  if (key === undefined) {
    key = createHash('sha256').update(material).digest('base64url').slice(0, 22);
    permissionKeys.set(material, key);
  }
  return key;
}
