/**
 * Conditional tool lists. A list's bytes are fixed by its toolset key (tenant, catalog
 * version, permission set, context) and its format, so that pair is its entity tag: a client
 * that polls with `If-None-Match` gets a 304 with no body until the catalog or its
 * permissions change. `private, no-cache`: the list is one user's, and is checked each time.
 */
export const LIST_CACHE_CONTROL = 'private, no-cache';

/** The strong ETag of a list body (key and format hold no quote: ids and names are checked). */
export function listEtag(toolsetKey: string, format: string): string {
  return `"${toolsetKey};${format}"`;
}

/** Whether `If-None-Match` names this ETag (or `*`): the client already holds these bytes. */
export function notModified(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (typeof ifNoneMatch !== 'string') return false;
  if (ifNoneMatch === etag) return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    // a weak comparison, as RFC 9110 asks of If-None-Match
    if (tag === '*' || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}
