import { toolFailure, toolPage, toolText } from './tool-outcome';

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
});
