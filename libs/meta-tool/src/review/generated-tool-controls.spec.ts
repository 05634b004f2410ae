import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import type { Principal } from '@app/registry';
import { isOperator } from './generated-tool-controls';
import {
  analyst,
  author,
  fakeAccess,
  reviewer,
  setup,
  TENANT,
} from '../meta-tool.fakes.spec-helper';

const admin: Principal = { tenantId: TENANT, userId: 'ada', roles: ['admin'], claims: {} };
const directories: string[] = [];
function service(options: Parameters<typeof setup>[0] = {}) {
  const made = setup(options);
  directories.push(made.directory);
  return made;
}

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => {
  Logger.overrideLogger(['log', 'error', 'warn']);
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

describe('isOperator', () => {
  const access = fakeAccess([
    { name: 'owner', isAdmin: true },
    { name: 'analyst', isAdmin: false },
  ]);

  it('lets reviewers, the admin role and any admin-flagged role operate, nobody else', () => {
    expect(isOperator(access, ['tool_reviewer'])).toBe(true);
    expect(isOperator(access, ['admin'])).toBe(true);
    expect(isOperator(access, ['owner'])).toBe(true);
    expect(isOperator(access, ['analyst', 'tool_author'])).toBe(false);
    expect(isOperator(access, [])).toBe(false);
  });
});

describe('MetaToolService: reviewers', () => {
  it('shows pending proposals and single proposals to reviewers only', async () => {
    const { service: meta, proposals } = service();
    const proposal = proposals.add({ name: 'count_orders' });
    await expect(meta.listPending(reviewer)).resolves.toEqual([proposal]);
    await expect(meta.get(reviewer, proposal.id)).resolves.toEqual(proposal);
    await expect(meta.get(reviewer, 'nope')).rejects.toMatchObject({ code: 'PROPOSAL_NOT_FOUND' });
    await expect(meta.listPending(author)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('GeneratedToolControls', () => {
  it('lets admins and reviewers manage generated tools, nobody else', async () => {
    const { controls, proposals } = service();
    proposals.generated.add('count_orders');
    await expect(controls.listTools(admin)).resolves.toEqual({
      meta_tool_enabled: true,
      tools: [{ name: 'count_orders', status: 'active' }],
    });
    await expect(controls.listTools(analyst)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(controls.deleteTool(author, 'count_orders')).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(proposals.generated.has('count_orders')).toBe(true);
  });

  it('disables a tool and refreshes the catalog; an unknown name is a clear error', async () => {
    const { controls, proposals, invalidated } = service();
    proposals.generated.add('count_orders');
    await expect(controls.setToolStatus(reviewer, 'count_orders', 'disabled')).resolves.toEqual({
      name: 'count_orders',
      status: 'disabled',
    });
    expect(invalidated).toEqual([TENANT]);
    await expect(controls.setToolStatus(reviewer, 'nope', 'active')).rejects.toMatchObject({
      code: 'GENERATED_TOOL_NOT_FOUND',
    });
  });

  it('deletes a tool with its file, and says so when there is none', async () => {
    const { controls, proposals, directory } = service();
    proposals.generated.add('count_orders');
    const file = path.join(directory, TENANT, 'count_orders.mjs');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'export default {};');
    await controls.deleteTool(admin, 'count_orders');
    expect(existsSync(file)).toBe(false);
    expect(proposals.generated.size).toBe(0);
    await expect(controls.deleteTool(admin, 'count_orders')).rejects.toMatchObject({
      code: 'GENERATED_TOOL_NOT_FOUND',
    });
  });

  it('switches meta_tool off for the tenant, after which proposals are refused', async () => {
    const { service: meta, controls } = service();
    await expect(controls.setTenantEnabled(admin, false)).resolves.toEqual({
      meta_tool_enabled: false,
    });
    const outcome = await meta.propose(author, { name: 'x', code: 'export default {}' });
    expect(outcome).toMatchObject({ is_error: true, error: { code: 'REFUSED' } });
    await expect(controls.listTools(admin)).resolves.toMatchObject({ meta_tool_enabled: false });
  });
});
