import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { modelArguments, RULES, violations } from '../support/provider-rules';
import type { Schema } from '../support/provider-rules';
import { typecheckByLine } from '../support/typecheck';

/**
 * The provider-compatibility table of docs/clients/README.md, cell by cell: for every demo
 * tool and list format, the tool (1) meets the provider's documented schema rules, (2)
 * typechecks against the provider SDK's own type, and (3) a call made the way that provider's
 * model makes it (strict: every key, null for the unused; else the required ones only),
 * sent as that provider returns it, is accepted by the gateway. The docs table must be the
 * one this test renders.
 */
const admin: TokenClaims = {
  tenant: 'acme',
  user: 'root',
  roles: ['admin'],
  claims: { region: 'east' },
};

interface Column {
  label: string;
  query: string;
  /** the SDK type the list item must be assignable to */
  type: string;
  /** the tool's name and arguments schema, and what the provider rules say about it */
  read(tool: Schema): { name: string; schema: Schema; problems: string[] };
  allKeys: boolean;
  call: 'openai' | 'openai-responses' | 'anthropic' | 'rest' | 'mcp';
}

const fn = (t: Schema) => t.function as Schema;
const strictFlag = (strict: unknown) => (strict === true ? [] : ['strict is not true']);
const COLUMNS: Column[] = [
  {
    label: 'openai',
    query: 'format=openai',
    type: 'ChatCompletionTool',
    allKeys: false,
    call: 'openai',
    read: (t) => ({ name: fn(t).name as string, schema: fn(t).parameters as Schema, problems: [] }),
  },
  {
    label: 'openai strict',
    query: 'format=openai&strict=true',
    type: 'ChatCompletionTool',
    allKeys: true,
    call: 'openai',
    read: (t) => ({
      name: fn(t).name as string,
      schema: fn(t).parameters as Schema,
      problems: [
        ...strictFlag(fn(t).strict),
        ...violations(fn(t).parameters as Schema, RULES.openai, true),
      ],
    }),
  },
  {
    label: 'responses',
    query: 'format=openai-responses',
    type: 'FunctionTool',
    allKeys: false,
    call: 'openai-responses',
    read: (t) => ({ name: t.name as string, schema: t.parameters as Schema, problems: [] }),
  },
  {
    label: 'responses strict',
    query: 'format=openai-responses&strict=true',
    type: 'FunctionTool',
    allKeys: true,
    call: 'openai-responses',
    read: (t) => ({
      name: t.name as string,
      schema: t.parameters as Schema,
      problems: [
        ...strictFlag(t.strict),
        ...violations(t.parameters as Schema, RULES.openai, true),
      ],
    }),
  },
  {
    label: 'anthropic',
    query: 'format=anthropic',
    type: 'AnthropicTool',
    allKeys: false,
    call: 'anthropic',
    read: (t) => ({ name: t.name as string, schema: t.input_schema as Schema, problems: [] }),
  },
  {
    label: 'anthropic strict',
    query: 'format=anthropic&strict=true',
    type: 'AnthropicTool',
    allKeys: false,
    call: 'anthropic',
    read: (t) => ({
      name: t.name as string,
      schema: t.input_schema as Schema,
      problems: [
        ...strictFlag(t.strict),
        ...violations(t.input_schema as Schema, RULES.anthropic, true),
      ],
    }),
  },
  {
    label: 'gemini',
    query: 'format=gemini',
    type: 'FunctionDeclaration',
    allKeys: false,
    call: 'rest',
    read: (t) => ({
      name: t.name as string,
      schema: t.parametersJsonSchema as Schema,
      problems: violations(t.parametersJsonSchema as Schema, RULES.gemini, false),
    }),
  },
  {
    label: 'mcp',
    query: 'format=mcp',
    type: 'McpTool',
    allKeys: false,
    call: 'mcp',
    read: (t) => {
      const parsed = ToolSchema.safeParse(t);
      return {
        name: t.name as string,
        schema: t.inputSchema as Schema,
        problems: parsed.success ? [] : [parsed.error.message],
      };
    },
  },
];

describe('provider compatibility table (e2e)', () => {
  let gw: RunningGateway;
  let mcp: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    gw = await startGateway();
    transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(admin)}` } },
    });
    mcp = new Client({ name: 'compat-table', version: '1.0.0' });
    await mcp.connect(transport);
  });
  afterAll(async () => {
    await transport.terminateSession();
    await mcp.close();
    await gw.close();
  });

  /** One call as the provider returns it; the failure message, or undefined when accepted. */
  async function refusal(column: Column, name: string, args: object): Promise<string | undefined> {
    if (column.call === 'mcp') {
      const result = await mcp.callTool({ name, arguments: args as Record<string, unknown> });
      return result.isError ? JSON.stringify(result.content) : undefined;
    }
    const body = {
      openai: {
        tool_calls: [
          { id: 'c', type: 'function', function: { name, arguments: JSON.stringify(args) } },
        ],
      },
      'openai-responses': {
        output: [{ type: 'function_call', call_id: 'c', name, arguments: JSON.stringify(args) }],
      },
      anthropic: { content: [{ type: 'tool_use', id: 'c', name, input: args }] },
      rest: { arguments: args },
    }[column.call];
    const url = column.call === 'rest' ? `/v1/tools/${name}/call` : '/v1/tool-calls';
    const res = await gw.request(url, { method: 'POST', as: admin, json: body });
    const answer = (await res.json()) as {
      is_error?: boolean;
      results?: Array<{ is_error: boolean }>;
    };
    const failed = res.status !== 200 || (answer.results?.[0] ?? answer).is_error !== false;
    return failed ? `${res.status} ${JSON.stringify(answer).slice(0, 300)}` : undefined;
  }

  it('every demo tool in every format is accepted, and docs/clients/README.md shows this table', async () => {
    const cells = new Map<string, string[]>(); // "tool|column" -> problems
    const typed: Array<{ cell: string; line: string }> = [];
    for (const column of COLUMNS) {
      const res = await gw.request(`/v1/tools?${column.query}`, { as: admin });
      const tools = ((await res.json()) as { tools: Schema[] }).tools;
      expect(tools).toHaveLength(11);
      for (const tool of tools) {
        const { name, schema, problems } = column.read(tool);
        const failed = await refusal(column, name, modelArguments(schema, column.allKeys));
        cells.set(`${name}|${column.label}`, [
          ...problems,
          ...(failed ? [`call refused: ${failed}`] : []),
        ]);
        typed.push({
          cell: `${name}|${column.label}`,
          line: `export const c${typed.length}: ${column.type} = ${JSON.stringify(tool)};`,
        });
      }
    }
    const header = [
      "import type { ChatCompletionTool } from 'openai/resources/chat/completions';",
      "import type { FunctionTool } from 'openai/resources/responses/responses';",
      "import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';",
      "import type { FunctionDeclaration } from '@google/genai';",
      "import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';",
    ];
    const source = [...header, ...typed.map((t) => t.line)].join('\n');
    for (const d of await typecheckByLine(source)) {
      const cell = typed[d.line - header.length - 1]?.cell ?? `line ${d.line}|typecheck`;
      cells.set(cell, [...(cells.get(cell) ?? []), `type: ${d.message}`]);
    }
    const problems = [...cells].filter(([, p]) => p.length > 0);
    expect(problems).toEqual([]);
    const docs = await readFile(path.resolve(__dirname, '../../docs/clients/README.md'), 'utf8');
    expect(docs).toContain(renderTable(cells));
  }, 180_000);
});

/** The markdown table, laid out as prettier lays it out. */
function renderTable(cells: Map<string, string[]>): string {
  const tools = [...new Set([...cells.keys()].map((k) => k.split('|')[0]))].sort();
  const rows = [
    ['tool (acme, role admin)', ...COLUMNS.map((c) => c.label)],
    ...tools.map((t) => [
      `\`${t}\``,
      ...COLUMNS.map((c) => (cells.get(`${t}|${c.label}`)?.length === 0 ? '✓' : '✗')),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(rows[0]),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...rows.slice(1).map(line),
  ].join('\n');
}
