/**
 * Conditional tool lists. A list's bytes are fixed by its toolset key (tenant, catalog
 * version, permission set, context) and its format, so that pair is its entity tag: a client
 * that polls with `If-None-Match` gets a 304 with no body until the catalog or its
 * permissions change. `private, no-cache`: the list is one user's, and is checked each time.
 */
export const LIST_CACHE_CONTROL = 'private, no-cache';

export const LIST_CONTENT_TYPE = 'application/json; charset=utf-8';

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

/** The headers of one list body, built once per (toolset key, format, body). */
export interface ListAnswer {
  toolsetKey: string;
  format: string;
  etag: string;
  /** flat `[name, value, ...]` with content-length, for a 200 */
  headers: readonly string[];
  /** for a 304: the same validators, no length */
  notModified: Record<string, string>;
  body: Buffer;
}

/**
 * The warm list's response headers, kept with the body they describe: a poll costs a lookup,
 * not an object built and validated per request. Held per body buffer (a body is built once
 * per toolset key, format and variant, and an entry goes with its body), checked against the
 * key and format it was made for.
 */
export class ListAnswers {
  private readonly held = new WeakMap<Buffer, ListAnswer>();

  of(toolsetKey: string, format: string, body: Buffer): ListAnswer {
    const known = this.held.get(body);
    if (known !== undefined && known.toolsetKey === toolsetKey && known.format === format)
      return known;
    const etag = listEtag(toolsetKey, format);
    const validators = {
      'content-type': LIST_CONTENT_TYPE,
      'x-toolset-key': toolsetKey,
      etag,
      'cache-control': LIST_CACHE_CONTROL,
    };
    const answer: ListAnswer = {
      toolsetKey,
      format,
      etag,
      headers: [...Object.entries(validators).flat(), 'content-length', String(body.length)],
      notModified: validators,
      body,
    };
    this.held.set(body, answer);
    return answer;
  }
}
