import { createHash } from 'node:crypto';

/**
 * Named statements a pooled connection may hold at most (ADR 0005). A prepared order lookup
 * holds ~80 KB of backend memory (CachedPlanSource + query + plan, measured on Postgres 15), so
 * 64 per connection is ~5 MB per backend, ~50 MB for a pool of 10; the least recently used
 * name past it is closed in the connection's next write.
 */
export const STATEMENTS_PER_CONNECTION = 64;

/** A named statement for one report version as one tenant runs it. */
export interface NamedStatement {
  /** `gw_r_` + 32 hex: under NAMEDATALEN, so the server never truncates (and merges) names */
  name: string;
  /** what the name was hashed from; a reuse checks it, so a hash collision cannot mix SQL */
  key: string;
}

/**
 * The name of a report's paged SQL as one tenant runs it. A plan is made under the
 * search_path (the tenant's data schema) and the role (the tenant's reader) it was parsed
 * with, and one pooled connection serves every tenant, so both are part of the name, with the
 * report version and the SQL itself: a new version or other SQL gets a new name.
 */
export function namedStatement(
  tenantId: string,
  dataSchema: string,
  reportId: string,
  version: number,
  text: string,
): NamedStatement {
  const key = `${tenantId}\0${dataSchema}\0${reportId}\0${version}\0${text}`;
  const name = `gw_r_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
  return { name, key };
}

/**
 * What one connection has prepared, as the server confirmed it (ParseComplete), in least
 * recently used order. A Parse that was only sent is not recorded: in a pipelined write an
 * earlier error skips it. Names evicted past the bound wait in `closing` until the server
 * confirmed their Close (CloseComplete); the next write on the connection sends those first.
 */
export class PreparedStatements {
  private readonly prepared = new Map<string, string>();
  private readonly toClose = new Set<string>();

  constructor(readonly limit = STATEMENTS_PER_CONNECTION) {
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new Error(`statements per connection must be a positive integer, not ${limit}`);
  }

  /** The statement is prepared for this very key (then it becomes the most recently used). */
  isPrepared(statement: NamedStatement): boolean {
    const key = this.prepared.get(statement.name);
    if (key !== statement.key) return false;
    this.prepared.delete(statement.name);
    this.prepared.set(statement.name, key);
    return true;
  }

  /**
   * Whether a Parse of this name may be sent: not while another key holds it (a collision of
   * 128 bits; the caller then uses the unnamed statement).
   */
  mayParse(statement: NamedStatement): boolean {
    return !this.prepared.has(statement.name);
  }

  /** Names to Close at the start of the next write (before any Parse of the same name). */
  closing(): string[] {
    return this.toClose.size === 0 ? [] : [...this.toClose];
  }

  /** The server answered ParseComplete for this name. */
  parsed(statement: NamedStatement): void {
    this.toClose.delete(statement.name);
    this.prepared.set(statement.name, statement.key);
    while (this.prepared.size > this.limit) {
      const oldest = this.prepared.keys().next().value as string;
      this.prepared.delete(oldest);
      this.toClose.add(oldest);
    }
  }

  /** The server answered CloseComplete for this name. */
  closed(name: string): void {
    this.toClose.delete(name);
  }

  get size(): number {
    return this.prepared.size;
  }
}
