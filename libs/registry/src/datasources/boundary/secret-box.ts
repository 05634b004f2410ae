import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Data source connections at rest: AES-256-GCM (node:crypto) under the configured key. A sealed
 * value is `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url): the key id (8 bytes of the key's
 * SHA-256) says which key opens it, so after a key change the previous key still opens the rows
 * not yet sealed again (docs/operations.md, "Changing the data source key").
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentId: string | undefined;

  /** `current` seals and opens; `previous` only open (a key change in progress). */
  constructor(current: Buffer | null, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (!key) continue;
      if (key.length !== 32) throw new Error('a data source key must be 32 bytes');
      this.keys.set(keyId(key), key);
    }
    this.currentId = current ? keyId(current) : undefined;
  }

  get enabled(): boolean {
    return this.currentId !== undefined;
  }

  seal(plaintext: string): string {
    if (!this.currentId) throw new Error('no data source key is configured');
    const key = this.keys.get(this.currentId)!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    // the key id is authenticated too: a value cannot be moved to another key's slot
    cipher.setAAD(Buffer.from(this.currentId));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', this.currentId, b64(iv), b64(cipher.getAuthTag()), b64(body)].join('.');
  }

  open(sealed: string): string {
    const [version, id, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || body === undefined) throw new Error('not a sealed data source value');
    const key = this.keys.get(id);
    if (!key) throw new Error(`sealed with a key this gateway does not have (key id ${id})`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }

  /** whether `sealed` was sealed under the current key (else a key change left it behind) */
  isCurrent(sealed: string): boolean {
    return sealed.split('.')[1] === this.currentId;
  }
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 11);
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** A key as configured: 32 bytes in base64 (44 characters) or hex (64); undefined if neither. */
export function parseDatasourceKey(text: string): Buffer | undefined {
  const raw = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const bytes = Buffer.from(raw, 'base64');
    return bytes.length === 32 ? bytes : undefined;
  }
  return undefined;
}
