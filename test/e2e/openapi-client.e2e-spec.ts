import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { typecheck } from '../support/typecheck';

/**
 * Typed OpenAPI (issue 18, scope 6): the served /docs/json describes every route's answer,
 * body and errors with components; openapi-typescript turns it into types, a client written
 * with openapi-fetch against them compiles (and a wrong call does not), and the same client
 * runs against the gateway.
 */
const run = promisify(execFile);
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const ROOT = path.resolve(__dirname, '../..');

type Operation = {
  parameters?: Array<{ name: string; in: string; schema?: object }>;
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
};
type Spec = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
};

/** The typed client, as a user would write it; `GENERATED` is openapi-typescript's output. */
const CLIENT = `
import createClient from 'openapi-fetch';
declare const process: { env: Record<string, string | undefined> };
GENERATED
const client = createClient<paths>({
  baseUrl: process.env.GATEWAY_URL,
  headers: { authorization: \`Bearer \${process.env.TOKEN}\` },
});
export async function main(): Promise<object> {
  const list = await client.GET('/v1/tools', {
    params: { query: { format: 'openai', strict: 'true', context: 'SALES' } },
  });
  const names: string[] = (list.data?.tools ?? []).map((t) => ('function' in t ? t.function.name : t.name));
  const call = await client.POST('/v1/tools/{name}/call', {
    params: { path: { name: 'query_report_sales_by_region' }, query: { encoding: 'compact' } },
    body: { arguments: { region: 'east', order_date: null } },
  });
  const page = call.data && !call.data.is_error ? call.data.result : undefined;
  const rows = page && 'rows' in page && Array.isArray(page.rows) ? page.rows : [];
  const refused = await client.POST('/v1/tools/{name}/call', {
    params: { path: { name: 'query_report_sales_by_region' } },
    body: { arguments: '{"region":"e"}' },
  });
  const toolError = refused.data?.is_error ? refused.data.error.code : undefined;
  const missing = await client.POST('/v1/tools/{name}/call', {
    params: { path: { name: 'query_report_nope' } },
    body: { arguments: {} },
  });
  const httpError: string | undefined = missing.error?.error.code;
  return { names, rows, toolError, status: missing.response.status, httpError };
}
export async function wrong(): Promise<void> {
  // @ts-expect-error encoding is "objects" or "compact"
  await client.POST('/v1/tools/{name}/call', { params: { path: { name: 'x' }, query: { encoding: 'csv' } } });
  // @ts-expect-error arguments are an object or a JSON string, not a number
  await client.POST('/v1/tools/{name}/call', { params: { path: { name: 'x' } }, body: { arguments: 42 } });
}
`;

describe('typed OpenAPI (e2e, openapi-typescript + openapi-fetch)', () => {
  let gw: RunningGateway;
  let spec: Spec;
  let dir: string;

  beforeAll(async () => {
    gw = await startGateway();
    spec = (await (await fetch(`${gw.baseUrl}/docs/json`)).json()) as Spec;
    await mkdir(path.join(ROOT, '.data'), { recursive: true });
    dir = await mkdtemp(path.join(ROOT, '.data', 'openapi-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await gw.close();
  });

  it('every route has an answer schema, a default ErrorBody, and parameters with real schemas', () => {
    const problems: string[] = [];
    const refs = JSON.stringify(spec).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
    for (const r of new Set(refs))
      if (!spec.components.schemas[r.split('/').pop() ?? '']) problems.push(`dangling ${r}`);
    for (const [route, methods] of Object.entries(spec.paths))
      for (const [method, op] of Object.entries(methods)) {
        const at = `${method.toUpperCase()} ${route}`;
        const ok = Object.entries(op.responses).filter(([s]) => s.startsWith('2'));
        if (ok.length === 0) problems.push(`${at}: no success answer`);
        for (const [status, answer] of ok)
          if (status !== '204' && !Object.values(answer.content ?? {})[0]?.schema)
            problems.push(`${at} ${status}: no schema`);
        if (JSON.stringify(op.responses.default) !== JSON.stringify(errorAnswer()))
          problems.push(`${at}: no default ErrorBody`);
        for (const p of op.parameters ?? [])
          if (JSON.stringify(p.schema ?? {}) === '{}') problems.push(`${at}: ${p.name} untyped`);
      }
    expect(problems).toEqual([]);
    const body = (route: string, method: string) =>
      spec.paths[route][method].requestBody?.content['application/json'].schema;
    expect(body('/v1/tools/{name}/call', 'post')).toEqual(ref('CallRequest'));
    expect(body('/v1/tool-calls', 'post')).toEqual(ref('ToolCallsRequest'));
    expect(body('/v1/tools/select', 'post')).toEqual(ref('SelectRequest'));
    expect(body('/v1/admin/reports/{id}', 'put')).toEqual(ref('ReportDocument'));
    expect(spec.openapi).toBe('3.1.0');
    expect(Object.keys(spec.paths).length).toBeGreaterThanOrEqual(20);
  });

  it('openapi-typescript types arguments as an object or string, and context as a string', async () => {
    const types = await generate();
    // (openapi-typescript's own `export type webhooks = Record<string, never>` aside)
    const typed = types.split('\n').filter((l) => !l.startsWith('export type '));
    expect(typed.filter((l) => l.includes('Record<string, never>'))).toEqual([]);
    expect(types).toMatch(/arguments\?: \{\s*\[key: string\]: unknown;\s*\} \| string;/);
    // the list's ?context= query parameter
    expect(types).toMatch(/query\?: \{[^}]*context\?: string;/);
  }, 60_000);

  it('a client written with openapi-fetch compiles, and runs against the gateway', async () => {
    const source = CLIENT.replace('GENERATED', await generate());
    expect(await typecheck(source)).toEqual([]);
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const file = path.join(dir, 'client.cjs');
    await writeFile(file, `${js}\nmain().then((r) => console.log(JSON.stringify(r)));\n`);
    const { stdout } = await run(process.execPath, [file], {
      env: { ...process.env, GATEWAY_URL: gw.baseUrl, TOKEN: await mintToken(alice) },
    });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    // alice (analyst) in the SALES context
    expect(out.names).toEqual([
      'query_report_customers_by_segment',
      'query_report_order_lookup',
      'query_report_orders_by_status',
      'query_report_sales_by_region',
      'query_report_top_customers',
    ]);
    expect(out.rows).toEqual([['east', expect.any(Number), expect.any(Number)]]);
    expect(out.toolError).toBe('INVALID_ARGUMENTS');
    expect({ status: out.status, code: out.httpError }).toEqual({
      status: 404,
      code: 'TOOL_NOT_FOUND',
    });
  }, 120_000);

  async function generate(): Promise<string> {
    const out = path.join(dir, 'api.d.ts');
    await run(process.execPath, [
      path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      `${gw.baseUrl}/docs/json`,
      '--output',
      out,
    ]);
    return readFile(out, 'utf8');
  }
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function errorAnswer(): object {
  return {
    description: 'any other error',
    content: { 'application/json': { schema: ref('ErrorBody') } },
  };
}
