import type { TemplateProblem } from '@app/templates';
import type { ParsedDatasource } from './datasource-document';
import { endpointLabel } from '../boundary/source-address';
import { SourceRefusedError } from '../boundary/source-connect';
import type { SourceConnector } from '../boundary/source-connect';
import { mysqlLoginProblems } from '../mysql/mysql-login-check';
import { factProblems, postgresLoginFacts } from '../postgres/postgres-login-check';

/**
 * The one answer to every failure to reach a server or log in to it (refused, closed, not
 * Postgres, wrong password, no answer): the same words, given when the connect timeout is over
 * and not before, so registration cannot tell a closed port from an open one (issue #37).
 */
export const UNREACHABLE =
  'cannot be used: it could not be reached, or it refused the login, within the connect timeout';

/**
 * Why the source's login must not be registered, for the primary and each replica: not an
 * allowed address, the gateway's own server, unreachable, able (as itself or any role it may
 * become) to do more than read, a missing or unreadable table. Empty: read-only by construction
 * over what it may read.
 */
export async function loginProblems(
  source: ParsedDatasource,
  connector: SourceConnector,
  timeoutMs: number,
): Promise<TemplateProblem[]> {
  const all = await Promise.all(
    source.endpoints.map(async (endpoint, i) => {
      const at = `${i === 0 ? 'the server' : `replica ${i}`} (${endpointLabel(endpoint)})`;
      try {
        if (endpoint.engine === 'mysql')
          return await mysqlLoginProblems(connector, endpoint, source, timeoutMs, at);
        const facts = await postgresLoginFacts(connector, endpoint, source, timeoutMs);
        return factProblems(facts, source.schema, at);
      } catch (err) {
        if (err instanceof SourceRefusedError)
          return [{ rule: err.rule, message: `${at} cannot be used: ${err.message}` }];
        return [{ rule: 'unreachable', message: `${at} ${UNREACHABLE}` }];
      }
    }),
  );
  return all.flat();
}
