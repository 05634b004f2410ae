import { DEMO_REPORTS } from '@app/db';
import Ajv from 'ajv';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { RULES, violations } from '../support/provider-rules';
import { typecheck } from '../support/typecheck';

/**
 * Provider-exact tool lists (issue 18, scope 3): every demo tool in every format is checked
 * against the provider's documented strict-mode rules, typechecked against the provider's own
 * SDK types, and the arguments a strict model sends (every key, null for unused) are accepted.
 */
const admin: TokenClaims = {
  tenant: 'acme',
  user: 'root',
  roles: ['admin'],
  claims: { region: 'east' },
};

type Schema = Record<string, unknown>;

/** The arguments a strict model sends when it uses only the required filters. */
function strictArguments(schema: Schema): Record<string, unknown> {
  const required = new Set((schema.required ?? []) as string[]);
  const args: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.properties as Record<string, Schema>)) {
    const nullable = JSON.stringify(sub).includes('"null"');
    args[name] = nullable ? null : name === 'order_id' ? 1 : required.has(name) ? 'x' : null;
  }
  return args;
}

describe('provider-exact tool lists (e2e)', () => {
  let gw: RunningGateway;
  const bodies: Record<string, Array<Record<string, unknown>>> = {};

  beforeAll(async () => {
    gw = await startGateway();
    for (const [label, query] of [
      ['openai', 'format=openai'],
      ['openai-strict', 'format=openai&strict=true'],
      ['openai-responses', 'format=openai-responses'],
      ['openai-responses-strict', 'format=openai-responses&strict=true'],
      ['anthropic', 'format=anthropic'],
      ['anthropic-strict', 'format=anthropic&strict=true'],
      ['gemini', 'format=gemini'],
    ]) {
      const res = await gw.request(`/v1/tools?${query}`, { as: admin });
      expect(res.status).toBe(200);
      bodies[label] = ((await res.json()) as { tools: Array<Record<string, unknown>> }).tools;
    }
  });
  afterAll(() => gw.close());

  it("serves all 11 demo tools in every format, each meeting its provider's documented rules", () => {
    const problems: string[] = [];
    for (const tool of bodies['openai-strict']) {
      const fn = tool.function as { name: string; parameters: Schema; strict: boolean };
      if (!fn.strict) problems.push(`${fn.name}: openai strict off`);
      problems.push(
        ...violations(fn.parameters, RULES.openai, true).map((p) => `${fn.name} openai ${p}`),
      );
    }
    for (const tool of bodies['openai-responses-strict']) {
      const t = tool as { name: string; parameters: Schema; strict: boolean; type: string };
      if (!t.strict || t.type !== 'function') problems.push(`${t.name}: responses not strict`);
      problems.push(
        ...violations(t.parameters, RULES.openai, true).map((p) => `${t.name} responses ${p}`),
      );
    }
    for (const tool of bodies['anthropic-strict']) {
      const t = tool as { name: string; input_schema: Schema; strict?: boolean };
      if (t.strict !== true) problems.push(`${t.name}: anthropic strict off`);
      problems.push(
        ...violations(t.input_schema, RULES.anthropic, true).map((p) => `${t.name} anthropic ${p}`),
      );
    }
    for (const tool of bodies.gemini) {
      const t = tool as { name: string; parametersJsonSchema: Schema };
      problems.push(
        ...violations(t.parametersJsonSchema, RULES.gemini, false).map(
          (p) => `${t.name} gemini ${p}`,
        ),
      );
    }
    expect(problems).toEqual([]);
    for (const list of Object.values(bodies)) expect(list).toHaveLength(11);
  });

  it("every list, and /v1/tool-calls' messages, typecheck against the providers' own SDK types", async () => {
    const run = async (body: unknown) =>
      (await (
        await gw.request('/v1/tool-calls', { method: 'POST', as: admin, json: body })
      ).json()) as Record<string, unknown>;
    const openaiCalls = await run({
      tool_calls: [
        {
          id: 'c1',
          type: 'function',
          function: { name: 'query_report_low_stock', arguments: '{}' },
        },
      ],
    });
    const anthropicCalls = await run({
      content: [{ type: 'tool_use', id: 't1', name: 'query_report_nope', input: {} }],
    });
    const responsesCalls = await run({
      output: [
        { type: 'function_call', call_id: 'f1', name: 'query_report_low_stock', arguments: '{}' },
      ],
    });
    const source = `
import type { ChatCompletionTool, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import type { MessageParam, Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import type { FunctionDeclaration, Tool as GeminiTool } from '@google/genai';
export const openai: ChatCompletionTool[] = ${JSON.stringify(bodies.openai)};
export const openaiStrict: ChatCompletionTool[] = ${JSON.stringify(bodies['openai-strict'])};
export const responses: FunctionTool[] = ${JSON.stringify(bodies['openai-responses'])};
export const responsesStrict: FunctionTool[] = ${JSON.stringify(bodies['openai-responses-strict'])};
export const anthropic: AnthropicTool[] = ${JSON.stringify(bodies.anthropic)};
export const anthropicStrict: AnthropicTool[] = ${JSON.stringify(bodies['anthropic-strict'])};
export const gemini: FunctionDeclaration[] = ${JSON.stringify(bodies.gemini)};
export const geminiTools: GeminiTool[] = [{ functionDeclarations: gemini }];
export const toolMessages: ChatCompletionToolMessageParam[] = ${JSON.stringify(openaiCalls.messages)};
export const toolResults: MessageParam = ${JSON.stringify(anthropicCalls.message)};
export const outputs: ResponseInputItem[] = ${JSON.stringify(responsesCalls.input)};
// the check is real: a Chat Completions list is not a Responses FunctionTool[]
// @ts-expect-error
export const wrong: FunctionTool[] = ${JSON.stringify(bodies.openai)};
`;
    expect(await typecheck(source)).toEqual([]);
  }, 120_000);

  it('accepts what a strict model sends for every demo tool: every key, null for the unused', async () => {
    const refused: string[] = [];
    for (const tool of bodies['openai-strict']) {
      const fn = tool.function as { name: string; parameters: Schema };
      const args = strictArguments(fn.parameters);
      const res = await gw.request(`/v1/tools/${fn.name}/call`, {
        method: 'POST',
        as: admin,
        json: { arguments: JSON.stringify(args) },
      });
      const body = (await res.json()) as { is_error: boolean; error?: { message: string } };
      if (res.status !== 200 || body.is_error) refused.push(`${fn.name}: ${JSON.stringify(body)}`);
    }
    expect(refused).toEqual([]);
  });

  it('refuses a format or strict value it does not know, with the valid ones', async () => {
    const res = await gw.request('/v1/tools?format=gemini&strict=true', { as: admin });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'strict=true applies to format openai, openai-responses or anthropic; gemini has no strict mode',
    );
  });

  it("a user of tenant globex sees only globex's tools in a strict list", async () => {
    const res = await gw.request('/v1/tools?format=openai&strict=true', {
      as: { tenant: 'globex', user: 'g', roles: ['finance'] },
    });
    const names = (
      (await res.json()) as { tools: Array<{ function: { name: string } }> }
    ).tools.map((t) => t.function.name);
    expect(names).toEqual([
      'query_report_average_order_value',
      'query_report_revenue_by_month',
      'query_report_sales_by_region',
    ]);
  });

  it("every demo report's MCP title is its report name, and its outputSchema holds its real rows", async () => {
    const ajv = new Ajv({ strict: false });
    const res = await gw.request('/v1/tools?format=mcp', { as: admin });
    const tools = (
      (await res.json()) as { tools: Array<{ name: string; title: string; outputSchema: Schema }> }
    ).tools;
    const failures: string[] = [];
    for (const tool of tools) {
      // the MCP title is the report's own name, as the admin wrote it
      const report = DEMO_REPORTS.find((r) => `query_report_${r.id}` === tool.name);
      expect(tool.title).toBe(report?.name);
      const call = await gw.request(`/v1/tools/${tool.name}/call`, {
        method: 'POST',
        as: admin,
        json: {
          arguments: tool.name.endsWith('order_lookup')
            ? { order_id: 1, page_size: 100 }
            : { page_size: 100 },
        },
      });
      const body = (await call.json()) as { is_error: boolean; result: unknown };
      expect(body.is_error).toBe(false);
      const validate = ajv.compile(tool.outputSchema);
      if (!validate(body.result)) failures.push(`${tool.name}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(failures).toEqual([]);
  });
});
