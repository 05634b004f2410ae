import Ajv from 'ajv';
import type { TemplateProblem } from '@app/templates';
import { parseSourceUrl } from '../boundary/source-address';
import type { SourceEndpoint, SourceEngine } from '../boundary/source-address';

/** A data source as `PUT /v1/admin/datasources/{name}` takes it. */
export interface DatasourceDocument {
  url: string;
  schema: string;
  tables: string[];
  replicas?: string[];
  pool_max?: number;
  statement_timeout_ms?: number;
  /** the CA certificate(s) a `verify-ca`/`verify-full` connection trusts, as PEM text */
  ca_pem?: string;
  /** every session sets request.jwt.claims to the caller's identity (issue #42; default false) */
  pass_identity?: boolean;
}

/** A document the gateway accepted: its URLs parsed into endpoints, the primary first. */
export interface ParsedDatasource {
  document: DatasourceDocument;
  /** the engine every URL of the document names (one engine per source) */
  engine: SourceEngine;
  endpoints: SourceEndpoint[];
  schema: string;
  tables: string[];
  caPem: string | undefined;
}

/** The operator's bounds on what a document may ask for (DATASOURCE_MAX_*). */
export interface DocumentBounds {
  maxPool: number;
  maxStatementTimeoutMs: number;
}

const IDENTIFIER = { type: 'string', pattern: '^[a-z_][a-z0-9_]*$', maxLength: 63 };
const URL = { type: 'string', maxLength: 2000 };
const PEM = /^\s*(-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*)+$/;

const validate = new Ajv({ allErrors: true, strict: false }).compile({
  type: 'object',
  required: ['url', 'schema', 'tables'],
  additionalProperties: false,
  properties: {
    url: URL,
    schema: IDENTIFIER,
    tables: { type: 'array', minItems: 1, maxItems: 500, uniqueItems: true, items: IDENTIFIER },
    replicas: { type: 'array', maxItems: 8, items: URL },
    pool_max: { type: 'integer', minimum: 1, maximum: 100 },
    statement_timeout_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    ca_pem: { type: 'string', maxLength: 65_536 },
    pass_identity: { type: 'boolean' },
  },
});

export const DATASOURCE_NAME = /^[a-z][a-z0-9_]*$/;

const refused = (message: string) => ({
  ok: false as const,
  problems: [{ rule: 'document', message }],
});

/**
 * The document's shape and its URLs parsed, or its problems (a URL is never echoed: it holds a
 * password). Nothing here connects anywhere: every refusal comes before any connection.
 */
export function parseDatasourceDocument(
  input: unknown,
  bounds: DocumentBounds,
): { ok: true; source: ParsedDatasource } | { ok: false; problems: TemplateProblem[] } {
  if (!validate(input))
    return {
      ok: false,
      problems: (validate.errors ?? []).map((e) => ({
        rule: 'document',
        message: `${e.instancePath.replace(/^\//, '') || 'datasource'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
      })),
    };
  const document = input as DatasourceDocument;
  if (document.pool_max !== undefined && document.pool_max > bounds.maxPool)
    return refused(
      `pool_max may be at most ${bounds.maxPool} on this gateway (DATASOURCE_MAX_POOL)`,
    );
  if (
    document.statement_timeout_ms !== undefined &&
    document.statement_timeout_ms > bounds.maxStatementTimeoutMs
  )
    return refused(
      `statement_timeout_ms may be at most ${bounds.maxStatementTimeoutMs} on this gateway (DATASOURCE_MAX_STATEMENT_TIMEOUT_MS)`,
    );
  if (document.ca_pem !== undefined && !PEM.test(document.ca_pem))
    return refused('ca_pem must be PEM text: one or more -----BEGIN CERTIFICATE----- blocks');
  const endpoints: SourceEndpoint[] = [];
  for (const [i, url] of [document.url, ...(document.replicas ?? [])].entries()) {
    const parsed = parseSourceUrl(url);
    if (!parsed.ok)
      return {
        ok: false,
        problems: [
          {
            ...parsed.problem,
            message: `${i === 0 ? 'url' : `replicas/${i - 1}`}: ${parsed.problem.message}`,
          },
        ],
      };
    endpoints.push(parsed.endpoint);
  }
  const engine = endpoints[0].engine;
  const problem = engineProblem(engine, endpoints, document);
  if (problem !== undefined) return refused(problem);
  return {
    ok: true,
    source: {
      document,
      engine,
      endpoints,
      schema: document.schema,
      tables: document.tables,
      caPem: document.ca_pem,
    },
  };
}

/** What one engine's sources must hold to (issue #42): one engine, and MySQL's own rules. */
function engineProblem(
  engine: SourceEngine,
  endpoints: readonly SourceEndpoint[],
  document: DatasourceDocument,
): string | undefined {
  if (endpoints.some((e) => e.engine !== engine))
    return 'the url and the replicas must all be of one engine (postgres:// or mysql://)';
  if (engine !== 'mysql') return undefined;
  if (endpoints.some((e) => e.database !== document.schema))
    return `on a MySQL source the schema is the database: schema must be the url's database ("${endpoints[0].database}")`;
  if (document.pass_identity === true)
    return 'pass_identity sets request.jwt.claims, a Postgres setting: it is for postgres:// sources only';
  return undefined;
}
