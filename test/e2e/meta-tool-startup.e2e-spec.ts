import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';
import { author, callTool, toolNames, toolSource } from '../support/meta-tool';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Generated tools stored in Postgres reach every instance at start-up. */
describe('generated tools at start-up', () => {
  let db: TestDatabase;
  let gw: RunningGateway;
  const warnings: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    const good = toolSource('from_db', "return 'materialised';");
    const broken = toolSource('tampered', "return 'x';");
    await sql`INSERT INTO gateway.generated_tools (tenant_id, name, description, input_schema, source, sha256, proposal_id, approved_by, smoke_tested)
              VALUES ('acme', 'from_db', 'stored tool', '{"type":"object","properties":{},"additionalProperties":false}', ${good}, ${sha(good)}, gen_random_uuid(), 'rex', true),
                     ('acme', 'tampered', 'stored tool', '{"type":"object"}', ${broken}, ${sha('something else')}, gen_random_uuid(), 'rex', true),
                     ('acme', 'bad_schema', 'stored tool', '{"type":"array"}', ${good}, ${sha(good)}, gen_random_uuid(), 'rex', true)`.execute(
      db.handle.db,
    );
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
    gw = await startGateway({}, db);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await gw.close();
    await db.drop();
  });

  it('writes every good tool to disk, skips a corrupt one with a warning naming it, and starts', async () => {
    expect((await gw.request('/readyz')).status).toBe(200);
    const file = path.join(gw.toolsDir, 'acme', 'from_db.mjs');
    expect(existsSync(file)).toBe(true);
    expect(sha(readFileSync(file, 'utf8'))).toBe(
      sha(toolSource('from_db', "return 'materialised';")),
    );
    expect(existsSync(path.join(gw.toolsDir, 'acme', 'tampered.mjs'))).toBe(false);
    expect(
      warnings.some((w) => w.includes('acme/tampered') && w.includes('does not match its sha256')),
    ).toBe(true);
  });

  it('serves the good tool and neither broken one', async () => {
    const names = await toolNames(gw, author);
    expect(names).toContain('from_db');
    expect(names).not.toContain('tampered');
    expect(names).not.toContain('bad_schema');
    expect(warnings.some((w) => w.includes('acme/bad_schema'))).toBe(true);
    expect((await callTool(gw, author, 'from_db', {})).body.result).toEqual({
      value: 'materialised',
    });
  });
});
