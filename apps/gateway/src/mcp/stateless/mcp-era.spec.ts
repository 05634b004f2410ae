import { decodedHeaderValue, mcpEra, requestIdOf } from './mcp-era';
import { parseTask } from '../tasks/mcp-task-store';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const headers = (method: string, extra: Record<string, string> = {}) => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...extra,
});

describe('mcpEra', () => {
  it('2025 traffic is legacy: initialize without a claim, a claim-less request, GET', () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    };
    expect(mcpEra('POST', {}, init).kind).toBe('legacy');
    expect(
      mcpEra(
        'POST',
        { 'mcp-protocol-version': '2025-06-18' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ).kind,
    ).toBe('legacy');
    expect(mcpEra('GET', {}, undefined).kind).toBe('legacy');
  });

  it('a modern request with its headers is modern', () => {
    const body = {
      jsonrpc: '2.0',
      id: 'x',
      method: 'tools/call',
      params: { name: 't', _meta: META },
    };
    expect(mcpEra('POST', headers('tools/call', { 'mcp-name': 't' }), body)).toMatchObject({
      kind: 'modern',
      request: { id: 'x', method: 'tools/call' },
    });
  });

  it.each([
    ['a missing Mcp-Method', { 'mcp-method': '' }, 'tools/list', {}],
    ['a different Mcp-Name', { 'mcp-name': 'u' }, 'tools/call', { name: 't' }],
    ['a missing Mcp-Name', {}, 'tools/call', { name: 't' }],
    ['a tasks/get Mcp-Name unlike its taskId', { 'mcp-name': 'b' }, 'tasks/get', { taskId: 'a' }],
  ])('%s is -32020 with the id', (_case, extra, method, params) => {
    const h: Record<string, string> = { ...headers(method), ...extra };
    if (h['mcp-method'] === '') delete h['mcp-method'];
    const era = mcpEra('POST', h, {
      jsonrpc: '2.0',
      id: 9,
      method,
      params: { ...params, _meta: META },
    });
    expect(era).toMatchObject({ kind: 'reject', status: 400, code: -32020, id: 9 });
  });

  it('an unserved revision is -32022 naming what is served and what was asked', () => {
    const meta = { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    const era = mcpEra(
      'POST',
      headers('server/discover', { 'mcp-protocol-version': '2099-01-01' }),
      { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: meta } },
    );
    expect(era).toMatchObject({ kind: 'reject', code: -32022, data: { requested: '2099-01-01' } });
    expect((era as { data: { supported: string[] } }).data.supported).toContain('2026-07-28');
  });
});

describe('header values and ids', () => {
  it('decodes the base64 sentinel, and refuses a malformed one', () => {
    expect(decodedHeaderValue(`=?base64?${Buffer.from('héllo').toString('base64')}?=`)).toBe(
      'héllo',
    );
    expect(decodedHeaderValue('plain')).toBe('plain');
    expect(decodedHeaderValue('=?base64?not base64!?=')).toBeUndefined();
  });

  it('reads a request id only when it is a string or a finite number', () => {
    expect(requestIdOf({ id: 'a' })).toBe('a');
    expect(requestIdOf({ id: 0 })).toBe(0);
    expect(requestIdOf({ id: {} })).toBeNull();
    expect(requestIdOf([{ id: 1 }])).toBeNull();
  });
});

describe('parseTask (a Redis value is untrusted)', () => {
  const task = {
    taskId: 't',
    owner: 'acme\u0000alice',
    status: 'working',
    createdAt: '2026-12-05T00:00:00.000Z',
    lastUpdatedAt: '2026-12-05T00:00:00.000Z',
    ttlMs: 1000,
  };
  it('reads a well-formed task', () => {
    expect(parseTask(JSON.stringify(task))).toEqual(task);
  });
  it.each([
    ['not JSON', '{'],
    ['an unknown status', JSON.stringify({ ...task, status: 'done' })],
    ['no owner', JSON.stringify({ ...task, owner: undefined })],
    ['a malformed error', JSON.stringify({ ...task, error: { code: 'x' } })],
  ])('refuses %s', (_case, raw) => {
    expect(parseTask(raw)).toBeUndefined();
  });
});
