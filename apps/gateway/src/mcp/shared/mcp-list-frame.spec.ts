import { createHash } from 'node:crypto';
import { listedTools, toolsListFrame, toolsOf } from './mcp-list-frame';

const tools = [{ name: 'query_report_sales', description: 'Sales "by" region', inputSchema: {} }];
const body = Buffer.from(JSON.stringify({ tools }));

describe('the MCP tools/list frame over a shared list body', () => {
  it('is the SDK serialisation of {tools} for the request id', () => {
    for (const id of [7, 'a"b']) {
      const frame = Buffer.concat(toolsListFrame(listedTools(body), id)).toString();
      expect(frame).toBe(JSON.stringify({ result: { tools }, jsonrpc: '2.0', id }));
    }
  });

  it('fingerprints the tools array as before (sha256 of its JSON), once per body', () => {
    const listed = listedTools(body);
    const expected = createHash('sha256').update(JSON.stringify(tools)).digest('base64url');
    expect(listed.fingerprint).toBe(expected);
    expect(listedTools(body)).toBe(listed);
    expect(toolsOf(listed)).toEqual(tools);
  });
});
