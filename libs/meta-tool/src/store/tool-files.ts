import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export function sha256(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}

/**
 * Generated tools on disk, one directory per tenant: `<root>/<tenant>/<name>.mjs`. Files are
 * only ever created by writing a temp file and renaming it over the final name, so a reader
 * sees the old version or the new one, never half of either.
 */
export class ToolFiles {
  constructor(readonly root: string) {}

  finalPath(tenantId: string, name: string): string {
    return path.join(this.root, tenantId, `${name}.mjs`);
  }

  /** `.tmp-<name>-<ts>-<rand>.mjs` next to where the tool will live. */
  async writeTemp(tenantId: string, name: string, source: string): Promise<string> {
    const dir = path.join(this.root, tenantId);
    await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, `.tmp-${name}-${Date.now()}-${randomBytes(4).toString('hex')}.mjs`);
    await fs.writeFile(file, source, { flag: 'wx', mode: 0o644 });
    return file;
  }

  async promote(tempFile: string, tenantId: string, name: string): Promise<string> {
    const target = this.finalPath(tenantId, name);
    await fs.rename(tempFile, target);
    return target;
  }

  /**
   * Puts `tempFile` in place of `<name>.mjs` (atomically) and keeps the previous version as a
   * hard link until `commit`; `undo` brings the previous version back (or removes the new one).
   */
  async swapIn(
    tempFile: string,
    tenantId: string,
    name: string,
  ): Promise<{ commit(): Promise<void>; undo(): Promise<void> }> {
    const target = this.finalPath(tenantId, name);
    const backup = await this.keepPrevious(tenantId, name);
    await fs.rename(tempFile, target);
    return {
      commit: async () => {
        if (backup) await fs.rm(backup, { force: true });
      },
      undo: async () => {
        if (backup) await fs.rename(backup, target);
        else await fs.rm(target, { force: true });
      },
    };
  }

  /** Removes `<name>.mjs`, recoverably until `commit`. */
  async removeRecoverably(
    tenantId: string,
    name: string,
  ): Promise<{ commit(): Promise<void>; undo(): Promise<void> }> {
    const target = this.finalPath(tenantId, name);
    const backup = await this.keepPrevious(tenantId, name);
    await fs.rm(target, { force: true });
    return {
      commit: async () => {
        if (backup) await fs.rm(backup, { force: true });
      },
      undo: async () => {
        if (backup) await fs.rename(backup, target);
      },
    };
  }

  private async keepPrevious(tenantId: string, name: string): Promise<string | undefined> {
    const dir = path.join(this.root, tenantId);
    await fs.mkdir(dir, { recursive: true });
    const backup = path.join(
      dir,
      `.tmp-${name}-${Date.now()}-${randomBytes(4).toString('hex')}.bak`,
    );
    try {
      await fs.link(this.finalPath(tenantId, name), backup);
      return backup;
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async discard(tempFile: string): Promise<void> {
    await fs.rm(tempFile, { force: true });
  }

  /** Makes `<name>.mjs` hold exactly `source` (by sha256), writing it atomically if not. */
  async materialize(
    tenantId: string,
    name: string,
    source: string,
    expectedSha: string,
  ): Promise<string> {
    const target = this.finalPath(tenantId, name);
    const current = await fs.readFile(target, 'utf8').catch(() => undefined);
    if (current !== undefined && sha256(current) === expectedSha) return target;
    const temp = await this.writeTemp(tenantId, name, source);
    return this.promote(temp, tenantId, name);
  }

  async list(tenantId: string): Promise<string[]> {
    return fs.readdir(path.join(this.root, tenantId)).catch(() => []);
  }
}
