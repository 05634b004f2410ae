import { randomBytes } from 'node:crypto';
import { parseDatasourceKey, SecretBox } from './secret-box';

describe('SecretBox (AES-256-GCM)', () => {
  const key = randomBytes(32);
  const secret = JSON.stringify({ url: 'postgres://reader:s3cret-pw@db:5432/wh', replicas: [] });

  it('seals so the plaintext is nowhere in the value, and opens it again', () => {
    const box = new SecretBox(key);
    const sealed = box.seal(secret);
    expect(sealed).not.toContain('s3cret-pw');
    expect(Buffer.from(sealed, 'latin1').toString('base64')).not.toContain('s3cret');
    expect(box.open(sealed)).toBe(secret);
    // a fresh IV each time
    expect(box.seal(secret)).not.toBe(sealed);
  });

  it('refuses a tampered value and a value of a key it does not have', () => {
    const box = new SecretBox(key);
    const parts = box.seal(secret).split('.');
    const body = Buffer.from(parts[4], 'base64url');
    body[0] ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(box.seal(secret))).toThrow(/key id/);
  });

  it('opens values of the previous key after a key change, and seals with the new one', () => {
    const old = new SecretBox(key).seal(secret);
    const next = new SecretBox(randomBytes(32), [key]);
    expect(next.open(old)).toBe(secret);
    expect(next.isCurrent(old)).toBe(false);
    expect(next.isCurrent(next.seal(secret))).toBe(true);
  });

  it('without a key, is disabled and refuses to seal', () => {
    const box = new SecretBox(null);
    expect(box.enabled).toBe(false);
    expect(() => box.seal(secret)).toThrow(/no data source key/);
  });

  it('parses a key from base64 or hex, and nothing shorter', () => {
    const raw = randomBytes(32);
    expect(parseDatasourceKey(raw.toString('base64'))).toEqual(raw);
    expect(parseDatasourceKey(raw.toString('hex'))).toEqual(raw);
    expect(parseDatasourceKey(randomBytes(16).toString('base64'))).toBeUndefined();
    expect(parseDatasourceKey('correct horse battery staple')).toBeUndefined();
  });
});
