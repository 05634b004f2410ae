import { McpOrigins } from './mcp-origin';

describe('McpOrigins', () => {
  const origins = new McpOrigins(['http://inspector.test:6274'], 'https://gw.example.com');

  it('lets non-browser requests (no Origin) through whatever their Host', () => {
    expect(origins.refusal({ host: 'anything.example:1' })).toBeUndefined();
  });

  it.each([
    ['http://localhost:8123', 'localhost:8123'],
    ['http://127.0.0.1:9', '127.0.0.1:9'],
    ['http://[::1]:3000', '[::1]:3000'],
    ['https://localhost', 'localhost'],
    ['http://inspector.test:6274', '127.0.0.1:3000'],
    ['https://gw.example.com', 'gw.example.com'],
    ['http://localhost:5173', 'inspector.test:3000'],
  ])('accepts Origin %s with Host %s', (origin, host) => {
    expect(origins.refusal({ origin, host })).toBeUndefined();
  });

  it('refuses a foreign Origin, naming the setting that would allow it', () => {
    expect(origins.refusal({ origin: 'http://evil.example.com', host: 'localhost:3000' })).toBe(
      'origin http://evil.example.com is not allowed; add it to MCP_ALLOWED_ORIGINS',
    );
  });

  it('refuses a DNS-rebinding page: a local Origin is not enough when Host is foreign', () => {
    expect(
      origins.refusal({ origin: 'http://localhost:3000', host: 'evil.example.com:3000' }),
    ).toMatch(/^host evil\.example\.com:3000 is not this gateway's/);
  });

  it.each([undefined, '', 'evil.com@localhost', 'localhost/x', 'localhost:99999999'])(
    'refuses a browser request whose Host is not a plain name[:port] (%s)',
    (host) => {
      expect(origins.refusal({ origin: 'http://localhost:3000', host })).toMatch(/^host /);
    },
  );

  it('refuses origins that only look local', () => {
    for (const origin of [
      'http://localhost.evil.com',
      'http://127.0.0.1.nip.io',
      'file://localhost',
      'http://localhost:3000/path',
      'null',
    ])
      expect(origins.refusal({ origin, host: 'localhost:3000' })).toMatch(/^origin /);
  });
});
