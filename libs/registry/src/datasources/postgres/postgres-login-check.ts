import type { TemplateProblem } from '@app/templates';
import type { SourceEndpoint } from '../boundary/source-address';
import type { SourceConnector } from '../boundary/source-connect';
import { readLoginFacts } from './source-server.repository';
import type { LoginFacts } from './source-server.repository';
import { uniformly } from '../boundary/uniform-wait';

/**
 * The login's facts over one connection made through the connector; any failure before the
 * facts are read waits out `timeoutMs` before it is thrown (a refusal by the connector does not).
 */
export function postgresLoginFacts(
  connector: SourceConnector,
  endpoint: SourceEndpoint,
  source: { schema: string; tables: readonly string[]; caPem: string | undefined },
  timeoutMs: number,
): Promise<LoginFacts> {
  const { Client, ...config } = connector.clientConfig(
    endpoint,
    source.caPem,
    'gateway-datasource-check',
  );
  const client = new Client({
    ...config,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: 5000,
  });
  client.on('error', () => undefined);
  return uniformly(
    timeoutMs,
    async (timeout) => {
      await Promise.race([client.connect(), timeout]);
      return Promise.race([readLoginFacts(client, source.schema, [...source.tables]), timeout]);
    },
    () => void client.end().catch(() => undefined),
  );
}

/** The refusals `facts` call for (pure: unit-tested). */
export function factProblems(facts: LoginFacts, schema: string, at: string): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const refuse = (rule: string, message: string) =>
    problems.push({ rule, message: `${at}: ${message}` });
  const superuser = facts.powers.filter((p) => p.endsWith(': superuser'));
  const others = facts.powers.filter((p) => !p.endsWith(': superuser'));
  if (superuser.length > 0)
    refuse(
      'superuser',
      `the login is a superuser or may become one (${names(superuser)}); register a read-only login`,
    );
  if (others.length > 0)
    refuse(
      'writable',
      `the login, or a role it may become (SET ROLE), has powers beyond reading (${names(others)}); register a login that is a member of no such role`,
    );
  if (facts.writable.length > 0)
    refuse(
      'writable',
      `the login, or a role it may become, may write (INSERT, UPDATE, DELETE, TRUNCATE, nextval) ${facts.writable.join(', ')}; grant it SELECT only`,
    );
  if (facts.owned.length > 0)
    refuse(
      'owner',
      `the login, or a role it may become, owns ${facts.owned.join(', ')}; an owner can always write`,
    );
  if (facts.largeObjects > 0)
    refuse('writable', `the login may write ${facts.largeObjects} large object(s)`);
  if (!facts.schemaExists) refuse('missing', `schema ${schema} does not exist`);
  if (facts.createIn.length > 0)
    refuse('writable', `the login may CREATE in ${facts.createIn.join(', ')}`);
  if (facts.missing.length > 0)
    refuse('missing', `no table ${facts.missing.join(', ')} in schema ${schema}`);
  if (facts.unreadable.length > 0)
    refuse('unreadable', `the login may not SELECT ${facts.unreadable.join(', ')}`);
  return problems;
}

function names(powers: string[]): string {
  return powers.slice(0, 5).join('; ') + (powers.length > 5 ? '; ...' : '');
}
