import { REPORT_DOCUMENT_SCHEMA, TOOL_FORMATS } from '@app/templates';
import { anyObject, bool, int, list, obj, ref, str } from './openapi-schema-kit';
import type { Schema } from './openapi-schema-kit';
import { RESULTS, TOOL_SHAPES } from './openapi-tool-schemas';

/**
 * The body of PATCH /v1/admin/reports/{id}: a JSON Merge Patch (RFC 7396) of the report
 * document. Any member may be left out (it stays as stored); `null` resets an optional member.
 */
function reportPatchSchema(): Schema {
  const { properties } = REPORT_DOCUMENT_SCHEMA;
  const required = new Set<string>(REPORT_DOCUMENT_SCHEMA.required);
  return {
    type: 'object',
    description:
      'JSON Merge Patch (RFC 7396) of ReportDocument: members left out stay as stored, null resets an optional member; the merged document must be a valid ReportDocument',
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => [
        name,
        required.has(name) ? schema : { anyOf: [schema, { type: 'null' }] },
      ]),
    ),
  };
}

const REQUESTS: Record<string, Schema> = {
  CallRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      arguments: {
        description: "the tool's arguments, as an object or as the JSON string OpenAI sends",
        oneOf: [anyObject, str],
      },
      encoding: { type: 'string', enum: ['objects', 'compact'] },
    },
  },
  ToolCallsRequest: {
    description:
      'the assistant message (OpenAI tool_calls), the Responses output, or the Anthropic message, as the provider returned it',
    oneOf: [
      { ...obj({ tool_calls: list(anyObject) }), additionalProperties: true },
      { ...obj({ output: list(anyObject) }), additionalProperties: true },
      { ...obj({ content: list(anyObject) }), additionalProperties: true },
    ],
  },
  ToolCallsResponse: obj(
    {
      format: { type: 'string', enum: ['openai', 'openai-responses', 'anthropic'] },
      messages: { ...list(anyObject), description: 'openai: role "tool" messages' },
      input: { ...list(anyObject), description: 'openai-responses: function_call_output items' },
      message: { ...anyObject, description: 'anthropic: one user message of tool_result blocks' },
      results: list({ allOf: [obj({ id: str }), ref('ToolResult')] }),
    },
    ['format', 'results'],
  ),
  SelectRequest: obj(
    {
      messages: { ...list(anyObject), description: 'OpenAI or Anthropic messages' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
      context: { ...str, description: 'keep to this business context' },
      format: { type: 'string', enum: [...TOOL_FORMATS], default: 'openai' },
    },
    ['messages'],
  ),
  SelectResponse: obj({
    contexts: list(anyObject),
    ranking: list(obj({ name: str, score: { type: 'number' }, matched: list(str) })),
    tools: list(anyObject),
  }),
  ReportDocument: REPORT_DOCUMENT_SCHEMA as unknown as Schema,
  ReportPatch: reportPatchSchema(),
  RejectRequest: { ...obj({ reason: { ...str, maxLength: 500 } }, []), additionalProperties: true },
  TryRequest: obj({ report: ref('ReportDocument'), arguments: anyObject }, ['report']),
};

const OTHERS: Record<string, Schema> = {
  ResourceMetadata: obj(
    {
      resource: str,
      authorization_servers: list(str),
      bearer_methods_supported: list(str),
      resource_name: str,
      resource_documentation: str,
      resource_signing_alg_values_supported: list(str),
    },
    ['resource', 'bearer_methods_supported'],
  ),
  Health: { ...obj({ status: { type: 'string', enum: ['ok'] }, sandbox: anyObject }, ['status']) },
  Readiness: obj(
    {
      status: { type: 'string', enum: ['ready', 'not ready'] },
      database: str,
      catalog_listener: str,
      redis: { type: 'string', enum: ['off', 'up', 'reconnecting'] },
      reason: str,
    },
    ['status'],
  ),
  AdminReport: obj({
    report: ref('ReportDocument'),
    status: obj(
      { served: bool, reason: str, problems: list(anyObject), version: int, updated_at: str },
      ['served', 'version', 'updated_at'],
    ),
  }),
  AdminReportList: obj({ reports: list(anyObject) }),
  Datasource: {
    ...obj({
      name: str,
      url: { ...str, description: 'the connection without its password' },
      replicas: list(str),
      schema: str,
      tables: list(str),
      pool_max: int,
      statement_timeout_ms: { type: ['integer', 'null'] },
      pass_identity: bool,
      ca_pem: {
        type: ['string', 'null'],
        description: 'the CA certificate(s) its TLS trusts (PEM)',
      },
      engine: {
        type: 'string',
        enum: ['postgres', 'mysql'],
        description: 'the protocol the URL names: postgres://, or mysql:// / mariadb://',
      },
      updated_at: str,
      sealed_with_current_key: bool,
      health: { ...anyObject, description: 'reachable, latency, version, last error, endpoints' },
    }),
    additionalProperties: true,
  },
  DatasourceList: obj({ datasources: list(ref('Datasource')) }),
  GeneratedToolList: obj({ meta_tool_enabled: bool, tools: list(anyObject) }),
  ProposalList: obj({ proposals: list(ref('Proposal')) }),
  Proposal: { ...obj({ id: str }), additionalProperties: true },
  Decision: { ...anyObject, description: 'the outcome of a review decision' },
  AccessExplanation: {
    ...obj({ tool: str }),
    additionalProperties: true,
    description: 'whether the tool is listed, and every check that decided it',
  },
  ConsoleView: { ...anyObject, description: 'an admin console read (see docs/console.md)' },
  JsonObject: anyObject,
  EventStream: {
    ...str,
    description:
      'server-sent events: `event: catalog` with `data: {"version":N}`, then keep-alives',
  },
  MetricsText: { ...str, description: 'Prometheus text exposition format' },
};

/**
 * The JSON Schemas of the REST API (OpenAPI 3.1 components), written for clients that
 * generate types from /docs/json (openapi-typescript, openapi-fetch): every answer, request
 * body and error has one. Free-form objects say `additionalProperties: true`, so generators
 * type them as records of unknown values, never `Record<string, never>`.
 */
export const OPENAPI_SCHEMAS: Record<string, Schema> = {
  ...TOOL_SHAPES,
  ...RESULTS,
  ...REQUESTS,
  ...OTHERS,
};

export { ref as schemaRef };
