import Ajv from 'ajv';
import type { TemplateProblem } from '@app/templates';

/** A data source as `PUT /v1/admin/datasources/{name}` takes it. */
export interface DatasourceDocument {
  url: string;
  schema: string;
  tables: string[];
  replicas?: string[];
  pool_max?: number;
  statement_timeout_ms?: number;
}

const IDENTIFIER = { type: 'string', pattern: '^[a-z_][a-z0-9_]*$', maxLength: 63 };
const URL = { type: 'string', pattern: '^postgres(ql)?://', maxLength: 2000 };

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
  },
});

export const DATASOURCE_NAME = /^[a-z][a-z0-9_]*$/;

/** The document's shape, or its problems (a URL is never echoed: it holds a password). */
export function parseDatasourceDocument(
  input: unknown,
): { ok: true; document: DatasourceDocument } | { ok: false; problems: TemplateProblem[] } {
  if (!validate(input))
    return {
      ok: false,
      problems: (validate.errors ?? []).map((e) => ({
        rule: 'document',
        message: `${e.instancePath.replace(/^\//, '') || 'datasource'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
      })),
    };
  const document = input as DatasourceDocument;
  for (const url of [document.url, ...(document.replicas ?? [])]) {
    let parsed: globalThis.URL;
    try {
      parsed = new globalThis.URL(url);
    } catch {
      return { ok: false, problems: [{ rule: 'document', message: 'a url is not a URL' }] };
    }
    if (!parsed.hostname || !parsed.username || parsed.pathname.length < 2)
      return {
        ok: false,
        problems: [
          {
            rule: 'document',
            message:
              'a url must name a host, a login and a database: postgres://user:password@host:port/db',
          },
        ],
      };
  }
  return { ok: true, document };
}
