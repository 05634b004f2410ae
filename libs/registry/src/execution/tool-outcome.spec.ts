import { toolFailure, toolJson, toolPage, toolText } from './tool-outcome';

/** The wire shape every transport serialises: field names and order are the contract. */
describe('tool outcomes', () => {
  it('builds an error the model can act on', () => {
    expect(JSON.stringify(toolFailure('t', 'REFUSED', 'no'))).toBe(
      '{"tool":"t","is_error":true,"error":{"code":"REFUSED","message":"no"}}',
    );
  });

  it('builds a report page, without text', () => {
    const page = { columns: [], rows: [{ n: 1 }], page: 1, page_size: 10, has_more: false };
    const outcome = toolPage('query_report_x', page);
    expect(JSON.stringify(outcome)).toBe(
      '{"tool":"query_report_x","is_error":false,"result":{"columns":[],"rows":[{"n":1}],"page":1,"page_size":10,"has_more":false}}',
    );
    expect(outcome).not.toHaveProperty('text');
  });

  it('builds a structured result with the text the model is shown, text first', () => {
    expect(JSON.stringify(toolText('meta_tool', 'installed', { name: 'x' }))).toBe(
      '{"tool":"meta_tool","is_error":false,"text":"installed","result":{"name":"x"}}',
    );
  });

  it('builds a JSON result whose text is that JSON, result first (search_tools, describe_tools)', () => {
    const result = { tools: [{ name: 'a' }], unknown: ['b'] };
    expect(JSON.stringify(toolJson('describe_tools', result))).toBe(
      '{"tool":"describe_tools","is_error":false,"result":{"tools":[{"name":"a"}],"unknown":["b"]},"text":"{\\"tools\\":[{\\"name\\":\\"a\\"}],\\"unknown\\":[\\"b\\"]}"}',
    );
  });

  it("keeps a code a transport widens (a batch call's TOOL_NOT_FOUND)", () => {
    const failure = toolFailure<'TOOL_NOT_FOUND'>('t', 'TOOL_NOT_FOUND', 'no such tool');
    expect(JSON.stringify(failure)).toBe(
      '{"tool":"t","is_error":true,"error":{"code":"TOOL_NOT_FOUND","message":"no such tool"}}',
    );
  });
});
