import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FileMigrationProvider, Migrator } from 'kysely';
import type { Kysely } from 'kysely';

export class MigrationError extends Error {}

/** Applies every pending migration in db/migrations; fails with the migration's name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are typeless by design
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({
      fs,
      path,
      migrationFolder: path.join(__dirname, 'migrations'),
    }),
    migrationTableSchema: 'public',
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new MigrationError(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
