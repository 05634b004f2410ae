import { SignJWT } from 'jose';
import { loadSettings } from '../config/gateway.config';
import { AuthError, TokenVerifier } from './token-verifier';

const SECRET = 'unit-test-secret-that-is-long-enough-123';

function verifier(): TokenVerifier {
  return new TokenVerifier(loadSettings({ AUTH_JWT_SECRET: SECRET, NODE_ENV: 'test' }));
}

const token = (expiresIn: string, claims: Record<string, unknown> = {}) =>
  new SignJWT({ tenant: 'acme', roles: ['analyst'], region: 'west', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(SECRET));

describe('TokenVerifier', () => {
  afterEach(() => jest.useRealTimers());

  it('turns a token into a principal with only the configured bound claims', async () => {
    const principal = await verifier().verify(`Bearer ${await token('5m', { secret_level: 'x' })}`);
    expect(principal).toEqual({
      tenantId: 'acme',
      userId: 'alice',
      roles: ['analyst'],
      claims: { region: 'west' },
    });
  });

  it('remembers a verified token, but never past its expiry', async () => {
    jest.useFakeTimers({
      now: Date.now(),
      doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'],
    });
    const v = verifier();
    const jwt = await token('60s');
    await expect(v.verify(`Bearer ${jwt}`)).resolves.toMatchObject({ userId: 'alice' });
    jest.advanceTimersByTime(59_000);
    await expect(v.verify(`Bearer ${jwt}`)).resolves.toMatchObject({ userId: 'alice' });
    jest.advanceTimersByTime(2_000);
    await expect(v.verify(`Bearer ${jwt}`)).rejects.toThrow(new AuthError('the token has expired'));
  });

  it('refuses a token signed with another key, and a missing one', async () => {
    const forged = await new SignJWT({ tenant: 'acme', roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('another-secret-that-is-also-long-enough'));
    await expect(verifier().verify(`Bearer ${forged}`)).rejects.toThrow('the token is invalid');
    await expect(verifier().verify(undefined)).rejects.toThrow('missing bearer token');
  });
});

describe('TokenVerifier: token lifetime', () => {
  const sign = (build: (jwt: SignJWT) => SignJWT) =>
    build(
      new SignJWT({ tenant: 'acme', roles: [] })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('a'),
    ).sign(new TextEncoder().encode(SECRET));
  const withMaxAge = (seconds: string) =>
    new TokenVerifier(
      loadSettings({
        AUTH_JWT_SECRET: SECRET,
        NODE_ENV: 'test',
        AUTH_MAX_TOKEN_AGE_SECONDS: seconds,
      }),
    );

  it('refuses a token without exp, which would never expire', async () => {
    const jwt = await sign((t) => t.setIssuedAt());
    await expect(verifier().verify(`Bearer ${jwt}`)).rejects.toThrow(
      new AuthError('the token has no exp claim: tokens must expire'),
    );
  });

  it('refuses a token that lives longer than AUTH_MAX_TOKEN_AGE_SECONDS, with or without iat', async () => {
    const v = withMaxAge('3600');
    const long = await sign((t) => t.setIssuedAt().setExpirationTime('2h'));
    await expect(v.verify(`Bearer ${long}`)).rejects.toThrow(/AUTH_MAX_TOKEN_AGE_SECONDS/);
    const noIat = await sign((t) => t.setExpirationTime('2h'));
    await expect(v.verify(`Bearer ${noIat}`)).rejects.toThrow(/AUTH_MAX_TOKEN_AGE_SECONDS/);
    const fine = await sign((t) => t.setIssuedAt().setExpirationTime('59m'));
    await expect(v.verify(`Bearer ${fine}`)).resolves.toMatchObject({ userId: 'a' });
  });

  it('refuses a token issued in the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = await sign((t) => t.setIssuedAt(now + 3600).setExpirationTime(now + 3700));
    await expect(verifier().verify(`Bearer ${jwt}`)).rejects.toThrow(/future/);
  });

  it('defaults to one day and refuses an out-of-range setting at start-up', () => {
    expect(loadSettings({ AUTH_JWT_SECRET: SECRET }).auth.maxTokenAgeSeconds).toBe(86_400);
    expect(() => loadSettings({ AUTH_MAX_TOKEN_AGE_SECONDS: '5' })).toThrow(
      /AUTH_MAX_TOKEN_AGE_SECONDS must be an integer between 60/,
    );
  });
});
