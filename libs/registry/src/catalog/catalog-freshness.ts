/**
 * When may an instance answer from the catalog it holds without asking Postgres? While its
 * LISTEN connection is up, always (a change would have been announced). While it is down,
 * only for `staleAfterMs` after the version was last read; then the version is read again.
 */
export class CatalogFreshness {
  listening = false;

  constructor(private readonly staleAfterMs: number) {}

  trusted(checkedAt: number): boolean {
    return this.listening || Date.now() - checkedAt < this.staleAfterMs;
  }
}
