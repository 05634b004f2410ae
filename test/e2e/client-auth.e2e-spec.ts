import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { JWTPayload } from 'jose';
import { startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';

/**
 * Auth the way MCP clients expect (issue 18, scope 4): RFC 6750 challenges with RFC 9728
 * resource metadata, tokens from an identity provider verified against its JWKS (served by
 * a local server this test starts), configurable claim names, and mcp-remote with a bad token.
 */
const ISSUER = 'https://idp.example.test/realms/acme';
const AUDIENCE = 'report-gateway';

describe('auth for MCP clients (e2e)', () => {
  let dev: RunningGateway;
  let idp: RunningGateway;
  let jwks: Server;
  let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
  let ec: Awaited<ReturnType<typeof generateKeyPair>>;
  let stranger: Awaited<ReturnType<typeof generateKeyPair>>;

  beforeAll(async () => {
    [rsa, ec, stranger] = await Promise.all([
      generateKeyPair('RS256'),
      generateKeyPair('ES256'),
      generateKeyPair('RS256'),
    ]);
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ];
    jwks = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    dev = await startGateway();
    idp = await startGateway(
      {
        AUTH_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/certs`,
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
        AUTH_TENANT_CLAIM: 'org',
        AUTH_USER_CLAIM: 'email',
        AUTH_ROLES_CLAIM: 'realm_access.roles',
      },
      dev.database,
    );
  });
  afterAll(async () => {
    await idp.close();
    await dev.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  const idpToken = (
    key: Parameters<SignJWT['sign']>[0],
    alg: string,
    kid: string,
    claims: JWTPayload = {},
    audience = AUDIENCE,
  ) =>
    new SignJWT({
      org: 'acme',
      email: 'alice@acme.test',
      realm_access: { roles: ['analyst'] },
      ...claims,
    })
      .setProtectedHeader({ alg, kid })
      .setIssuer(ISSUER)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);

  const list = (gw: RunningGateway, token?: string) =>
    fetch(`${gw.baseUrl}/v1/tools?format=openai`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it('a 401 without a token names the resource metadata; a bad token is invalid_token with the reason', async () => {
    const missing = await list(dev);
    expect(missing.status).toBe(401);
    const metadataUrl = `${dev.baseUrl}/.well-known/oauth-protected-resource`;
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl}"`,
    );
    const bad = await list(dev, 'not-a-jwt');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="the token is invalid", resource_metadata="${metadataUrl}"`,
    );
    // the same challenge on /mcp, where MCP clients meet it
    const mcp = await fetch(`${dev.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-jwt', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('serves RFC 9728 metadata naming the configured authorization server', async () => {
    const res = await fetch(`${idp.baseUrl}/.well-known/oauth-protected-resource`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: idp.baseUrl,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      resource_name: 'Report tool gateway',
      resource_documentation: `${idp.baseUrl}/docs`,
      resource_signing_alg_values_supported: ['RS256', 'ES256'],
    });
    const forMcp = await fetch(`${idp.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(((await forMcp.json()) as { resource: string }).resource).toBe(idp.baseUrl);
    // development mode names no authorization server
    const devMeta = (await (
      await fetch(`${dev.baseUrl}/.well-known/oauth-protected-resource`)
    ).json()) as Record<string, unknown>;
    expect(devMeta).not.toHaveProperty('authorization_servers');
  });

  it('verifies RS256 and ES256 tokens against the JWKS, reading the configured claim names', async () => {
    for (const token of [
      await idpToken(rsa.privateKey, 'RS256', 'rsa-1'),
      await idpToken(ec.privateKey, 'ES256', 'ec-1'),
    ]) {
      const res = await list(idp, token);
      expect(res.status).toBe(200);
      const names = (
        (await res.json()) as { tools: Array<{ function: { name: string } }> }
      ).tools.map((t) => t.function.name);
      expect(names).toContain('query_report_sales_by_region');
      expect(names).not.toContain('query_report_revenue_by_month');
    }
  });

  it('refuses a wrong audience, an unknown key, an HS256 token and a token without the tenant claim', async () => {
    const cases: Array<[string, string]> = [
      [
        await idpToken(rsa.privateKey, 'RS256', 'rsa-1', {}, 'someone-else'),
        'the token is invalid',
      ],
      [await idpToken(stranger.privateKey, 'RS256', 'rsa-1'), 'the token is invalid'],
      [
        await idpToken(new TextEncoder().encode('x'.repeat(40)), 'HS256', 'rsa-1'),
        'the token is invalid',
      ],
      [
        await idpToken(rsa.privateKey, 'RS256', 'rsa-1', { org: undefined }),
        'the token has no valid org claim (the tenant)',
      ],
    ];
    for (const [token, message] of cases) {
      const res = await list(idp, token);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(message);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it("a JWKS user of tenant globex gets globex's rows, never acme's", async () => {
    const token = await idpToken(rsa.privateKey, 'RS256', 'rsa-1', { org: 'globex' });
    const acme = await fetch(`${idp.baseUrl}/v1/tools/query_report_sales_by_region/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"arguments":{}}',
    });
    // the same report id exists in globex, so the call runs on globex's own data
    const body = (await acme.json()) as { is_error: boolean; result: { rows: unknown[] } };
    const direct = await dev.request('/v1/tools/query_report_sales_by_region/call', {
      method: 'POST',
      as: { tenant: 'globex', user: 'g', roles: ['analyst'] },
      json: { arguments: {} },
    });
    // the same answer, apart from each request's own trace id
    const same = (answer: object) => ({ ...answer, trace_id: 'per request' });
    expect(same(body)).toEqual(same((await direct.json()) as object));
    const acmeRows = await dev.request('/v1/tools/query_report_sales_by_region/call', {
      method: 'POST',
      as: { tenant: 'acme', user: 'a', roles: ['analyst'] },
      json: { arguments: {} },
    });
    expect(body).not.toEqual(await acmeRows.json());
  });

  it('mcp-remote given a bad token shows the gateway\'s message, not "Cannot POST /register"', async () => {
    const configDir = await mkdtemp(path.join(tmpdir(), 'mcp-remote-'));
    const child = spawn(
      process.execPath,
      [
        path.resolve(__dirname, '../../node_modules/mcp-remote/dist/proxy.js'),
        `${dev.baseUrl}/mcp`,
        '--header',
        'Authorization: Bearer not-a-jwt',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await new Promise<void>((resolve) => child.on('exit', () => resolve()));
      expect(stderr).toContain(
        'report tool gateway: the token is invalid. This gateway does not register OAuth clients',
      );
      expect(stderr).not.toContain('Cannot POST /register');
    } finally {
      child.kill();
      await rm(configDir, { recursive: true, force: true });
    }
  }, 60_000);
});
