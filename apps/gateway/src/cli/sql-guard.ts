/**
 * Checks one SQL text from stdin against a table whitelist, with the same SqlGuard the gateway
 * uses. Prints one JSON line, `{"ok":true}` or `{"ok":false,"errors":[{"rule","message"}]}`;
 * exits 0 when allowed, 1 when refused, 2 on a usage error.
 *
 *   npx tsx apps/gateway/src/cli/sql-guard.ts --schema public --allow orders,customers \
 *     [--params region,from] < query.sql
 *
 * `$n` placeholders are accepted, and the `:names` the SQL uses count as declared unless
 * --params lists the declared names explicitly.
 */
import { parseArgs } from 'node:util';
import { initSqlParser, placeholderNames, SqlGuard } from '@app/templates';
import type { SqlGuardInput } from '@app/templates';

const USAGE =
  'usage: sql-guard --allow table[,schema.table...] [--schema public] [--params a,b] < query.sql';

class UsageError extends Error {}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

interface CommandLine {
  whitelist: SqlGuardInput['whitelist'];
  /** declared parameter names; undefined = whatever the SQL uses */
  params?: string[];
}

function parseCommandLine(argv: string[]): CommandLine {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        schema: { type: 'string', default: 'public' },
        allow: { type: 'string' },
        params: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const tables = list(values.allow);
  if (tables.length === 0) throw new UsageError('--allow needs at least one table');
  if (!values.schema) throw new UsageError('--schema must not be empty');
  return {
    whitelist: { defaultSchema: values.schema, tables },
    params: values.params === undefined ? undefined : list(values.params),
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<number> {
  let commandLine: CommandLine;
  try {
    commandLine = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`sql-guard: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  const sql = await readStdin();
  await initSqlParser();
  const verdict = new SqlGuard().check({
    sql,
    whitelist: commandLine.whitelist,
    declaredParams: commandLine.params ?? placeholderNames(sql),
    parameterStyle: 'positional',
  });
  process.stdout.write(`${JSON.stringify(verdict)}\n`);
  return verdict.ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`sql-guard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
