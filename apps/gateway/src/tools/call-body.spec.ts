import { parseCallRequest } from './call-body';
import { parseCallBatch, resultMessages } from './provider-tool-calls';

describe('parseCallRequest', () => {
  it('refuses arguments outside the wrapper and says where they go', () => {
    expect(parseCallRequest({ region: 'east' }, undefined)).toEqual({
      ok: false,
      message:
        'unknown top-level key "region": put the tool\'s arguments under "arguments", e.g. {"arguments":{"region":"east"}}',
    });
  });

  it('reads arguments given as a JSON string (OpenAI function.arguments)', () => {
    const parsed = parseCallRequest({ arguments: '{"region":"east"}' }, undefined);
    expect(parsed).toEqual({
      ok: true,
      value: { arguments: { ok: true, value: { region: 'east' } }, encoding: 'objects' },
    });
  });

  it("a string that is not JSON is the model's error, not a shape error", () => {
    const parsed = parseCallRequest({ arguments: '{"region":' }, undefined);
    expect(parsed.ok && parsed.value.arguments.ok).toBe(false);
  });

  it('takes the encoding from the body or the query, and refuses others', () => {
    expect(parseCallRequest({ encoding: 'compact' }, undefined)).toMatchObject({
      value: { encoding: 'compact' },
    });
    expect(parseCallRequest(undefined, 'compact')).toMatchObject({
      value: { encoding: 'compact' },
    });
    expect(parseCallRequest({}, 'csv')).toEqual({
      ok: false,
      message: 'the encoding query parameter must be "objects" or "compact"; got "csv"',
    });
    expect(parseCallRequest([1], undefined).ok).toBe(false);
  });
});

describe('parseCallBatch', () => {
  it('reads an OpenAI assistant message with string arguments', () => {
    const parsed = parseCallBatch({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        { id: 'call_2', type: 'function', function: { name: 'b', arguments: '' } },
      ],
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        format: 'openai',
        calls: [
          { id: 'call_1', name: 'a', arguments: { ok: true, value: { x: 1 } } },
          { id: 'call_2', name: 'b', arguments: { ok: true, value: {} } },
        ],
      },
    });
  });

  it('reads Anthropic tool_use blocks and skips text blocks', () => {
    const parsed = parseCallBatch({
      role: 'assistant',
      content: [
        { type: 'text', text: 'let me look' },
        { type: 'tool_use', id: 'toolu_1', name: 'a', input: { x: 1 } },
      ],
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        format: 'anthropic',
        calls: [{ id: 'toolu_1', name: 'a', arguments: { ok: true, value: { x: 1 } } }],
      },
    });
  });

  it('reads Responses API function_call items', () => {
    const parsed = parseCallBatch({
      output: [
        { type: 'reasoning', id: 'rs_1' },
        { type: 'function_call', call_id: 'fc_1', name: 'a', arguments: '{}' },
      ],
    });
    expect(parsed).toMatchObject({ ok: true, value: { format: 'openai-responses' } });
  });

  it.each([
    [{}, "send the provider's tool calls as they came"],
    [{ tool_calls: [] }, 'holds no tool call'],
    [{ tool_calls: [{ id: 'x', function: {} }] }, 'tool_calls[0].function.name must be'],
    [
      {
        content: [
          { type: 'tool_use', id: 'a', name: 'n' },
          { type: 'tool_use', id: 'a', name: 'n' },
        ],
      },
      'same id',
    ],
    [
      {
        content: Array.from({ length: 33 }, (_, i) => ({
          type: 'tool_use',
          id: `t${i}`,
          name: 'n',
        })),
      },
      'the limit is 32',
    ],
  ])('refuses case %#', (body, message) => {
    const parsed = parseCallBatch(body);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain(message);
  });
});

describe('resultMessages', () => {
  const texts = [
    { id: 'a', text: 'rows', isError: false },
    { id: 'b', text: 'Error X: no', isError: true },
  ];
  it("builds each provider's messages", () => {
    expect(resultMessages('openai', texts)).toEqual({
      messages: [
        { role: 'tool', tool_call_id: 'a', content: 'rows' },
        { role: 'tool', tool_call_id: 'b', content: 'Error X: no' },
      ],
    });
    expect(resultMessages('anthropic', texts)).toEqual({
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'rows' },
          { type: 'tool_result', tool_use_id: 'b', content: 'Error X: no', is_error: true },
        ],
      },
    });
    expect(resultMessages('openai-responses', texts)).toEqual({
      input: [
        { type: 'function_call_output', call_id: 'a', output: 'rows' },
        { type: 'function_call_output', call_id: 'b', output: 'Error X: no' },
      ],
    });
  });
});
