import { migrateToLatest, seedDemo } from '@app/db';
import { loadSettings } from '../config/gateway.config';
import { openDatabase } from '../database/open-database';

/** `npm run db:migrate` / `npm run db:seed`: against DATABASE_URL, or the embedded database. */
async function main(command: string | undefined): Promise<void> {
  if (command !== 'migrate' && command !== 'seed') {
    process.stderr.write('usage: db.ts migrate|seed\n');
    process.exitCode = 2;
    return;
  }
  const settings = loadSettings();
  const { handle, description } = await openDatabase(settings);
  try {
    const applied = await migrateToLatest(handle.db);
    process.stdout.write(
      `${description}\nmigrations applied: ${applied.length ? applied.join(', ') : 'none pending'}\n`,
    );
    if (command === 'seed') {
      await seedDemo(handle.db);
      process.stdout.write('demo tenants acme and globex seeded\n');
    }
  } finally {
    await handle.close();
  }
}

main(process.argv[2]).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
