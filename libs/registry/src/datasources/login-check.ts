import type { TemplateProblem } from '@app/templates';
import type { DatasourceDocument } from './datasource-document';
import { connectionFailure } from './datasource-unavailable';
import { readLoginFacts } from './source-server.repository';
import type { LoginFacts } from './source-server.repository';

/**
 * Why the source's login must not be registered, for the primary and each replica: unreachable,
 * a superuser, able to write anything it reaches, owner of a listed table, CREATE on the schema,
 * a missing or unreadable table. Empty: read-only by construction over what it may read.
 */
export async function loginProblems(
  doc: DatasourceDocument,
  connectTimeoutMs: number,
): Promise<TemplateProblem[]> {
  const servers = [doc.url, ...(doc.replicas ?? [])];
  const all = await Promise.all(
    servers.map(async (url, i) => {
      const where = i === 0 ? 'the server' : `replica ${i}`;
      const at = `${where} (${hostOf(url)})`;
      let facts: LoginFacts;
      try {
        facts = await readLoginFacts(url, doc.schema, doc.tables, connectTimeoutMs);
      } catch (err) {
        const reason = connectionFailure(err) ?? 'the check failed';
        return [{ rule: 'unreachable', message: `${at} cannot be used: ${reason}` }];
      }
      return factProblems(facts, doc.schema, at);
    }),
  );
  return all.flat();
}

/** The refusals `facts` call for (pure: unit-tested). */
export function factProblems(facts: LoginFacts, schema: string, at: string): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const refuse = (rule: string, message: string) =>
    problems.push({ rule, message: `${at}: ${message}` });
  if (facts.superuser) refuse('superuser', 'the login is a superuser; register a read-only login');
  if (facts.createRole || facts.createDb)
    refuse('writable', 'the login may create roles or databases; register a read-only login');
  if (facts.writable.length > 0)
    refuse(
      'writable',
      `the login may write (INSERT, UPDATE, DELETE or TRUNCATE) ${facts.writable.join(', ')}; grant it SELECT only`,
    );
  if (facts.owned.length > 0)
    refuse('owner', `the login owns ${facts.owned.join(', ')}; an owner can always write`);
  if (!facts.schemaExists) refuse('missing', `schema ${schema} does not exist`);
  else if (facts.createInSchema) refuse('writable', `the login may CREATE in schema ${schema}`);
  if (facts.missing.length > 0)
    refuse('missing', `no table ${facts.missing.join(', ')} in schema ${schema}`);
  if (facts.unreadable.length > 0)
    refuse('unreadable', `the login may not SELECT ${facts.unreadable.join(', ')}`);
  return problems;
}

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}`;
  } catch {
    return 'a bad URL';
  }
}
