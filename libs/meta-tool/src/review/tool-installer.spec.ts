import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { reviewer, setupPerFile, TENANT, toolCode } from '../meta-tool.fakes.spec-helper';

const made = setupPerFile();
function installing(options: Parameters<typeof made>[0] = {}) {
  const fakes = made(options);
  const proposal = fakes.proposals.add({ name: 'count_orders', source: toolCode() });
  return { ...fakes, proposal };
}

describe('ToolInstaller', () => {
  it('refuses a new tool past the tenant limit without running the gate, naming the setting', async () => {
    const { installer, catalog, proposal, proposals, runtime } = installing({
      maxToolsPerTenant: 1,
    });
    proposals.generated.add('other_tool');
    const decision = await installer.install(catalog, proposal, reviewer.userId);
    expect(decision).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('META_TOOL_MAX_TOOLS_PER_TENANT=1'),
    });
    expect(runtime.ranAs).toEqual([]);
    expect(proposals.settled).toEqual([
      { id: proposal.id, status: 'failed', actor: reviewer.userId, outcome: decision.message },
    ]);
  });

  it('replaces an installed tool at the limit; a refusal says the installed version keeps working', async () => {
    const { installer, catalog, proposal, proposals, runtime } = installing({
      maxToolsPerTenant: 1,
    });
    proposals.generated.add('count_orders');
    runtime.verdict = { ok: false, message: 'smoke call: run() threw' };
    const decision = await installer.install(catalog, proposal, reviewer.userId);
    expect(runtime.ranAs).toHaveLength(1);
    expect(decision.message).toContain('and the installed version keeps working');
    expect(proposals.installed).toEqual([]);
  });

  it('undoes the file and leaves the catalog alone when the database refuses the write', async () => {
    const { installer, catalog, proposal, proposals, invalidated, directory } = installing();
    proposals.install = async (_tenant, _proposal, _installation, between) => {
      await between();
      throw new Error('connection lost');
    };
    const decision = await installer.install(catalog, proposal, reviewer.userId);
    expect(decision).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('install: the tool could not be recorded'),
    });
    expect(existsSync(path.join(directory, TENANT, 'count_orders.mjs'))).toBe(false);
    // no temporary file is left behind either
    const left = existsSync(path.join(directory, TENANT))
      ? readdirSync(path.join(directory, TENANT))
      : [];
    expect(left).toEqual([]);
    expect(invalidated).toEqual([]);
  });

  it('counts the approval as the human gate and the runtime gate by outcome', async () => {
    const { installer, catalog, proposal, counted } = installing();
    await installer.install(catalog, proposal, reviewer.userId);
    expect(counted).toEqual([
      { gate: 'human', outcome: 'approved' },
      { gate: 'runtime', outcome: 'pass' },
    ]);
  });
});
