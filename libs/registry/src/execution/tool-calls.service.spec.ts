import type { ToolDefinition } from '@app/templates';
import type { Principal } from '../access/principal';
import type { GeneratedTool, GeneratedToolRunner } from '../catalog/model/generated-tools';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';
import { toolNotFound } from '../errors';
import type { CatalogService } from '../listing/catalog.service';
import type { ServedTool } from '../listing/served-tool';
import { CallActivity } from './call-activity';
import { CallLedger } from './call-ledger';
import type { ReportExecutor } from './report-executor';
import type { ToolCallOutcome } from './tool-outcome';
import { ToolCallService } from './tool-calls.service';

const bob: Principal = { tenantId: 'acme', userId: 'bob', roles: [], claims: {} };
const definition = (name: string): ToolDefinition => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  readOnly: true,
});
const ok = (tool: string): ToolCallOutcome =>
  ({ tool, is_error: false, result: {} }) as unknown as ToolCallOutcome;

/** A catalog that knows one built-in and one generated tool; every other name is not found. */
function setup(runner: GeneratedToolRunner | null) {
  const calls: string[] = [];
  const tools = new Map<string, ServedTool>([
    [
      'echo',
      {
        kind: 'builtin',
        definition: definition('echo'),
        builtin: {
          definition: definition('echo'),
          category: 'tools',
          call: () => {
            calls.push('builtin');
            return Promise.resolve(ok('echo'));
          },
        },
      },
    ],
    [
      'g_sum',
      {
        kind: 'generated',
        definition: definition('g_sum'),
        generated: {} as GeneratedTool,
      },
    ],
  ]);
  const catalog = { tenant: { id: 'acme' } } as unknown as TenantCatalog;
  const catalogs = {
    resolve: (_p: Principal, name: string) => {
      const tool = tools.get(name);
      return tool ? Promise.resolve({ catalog, tool }) : Promise.reject(toolNotFound(name));
    },
  } as unknown as CatalogService;
  const executor = {} as ReportExecutor;
  const activity = CallActivity.withClock(1, () => 0);
  const service = new ToolCallService(catalogs, executor, runner, new CallLedger(activity));
  const counted = () => activity.recent('acme')[0];
  return { service, calls, counted };
}

const runner = (calls: string[]): GeneratedToolRunner => ({
  run: (_tenant, tool, args) => {
    calls.push(`generated ${JSON.stringify(args)}`);
    return Promise.resolve(ok('g_sum'));
  },
});

describe('ToolCallService', () => {
  it('runs a built-in the caller may use, and counts the call', async () => {
    const { service, calls, counted } = setup(null);
    await expect(service.call(bob, 'echo', {})).resolves.toMatchObject({ is_error: false });
    expect(calls).toEqual(['builtin']);
    expect(counted()).toMatchObject({ calls: 1, errors: 0 });
  });

  it('refuses arguments beyond the bounds before any tool sees them', async () => {
    const { service, calls, counted } = setup(null);
    let deep: unknown = {};
    for (let i = 0; i < 100; i++) deep = { deeper: deep };
    const outcome = await service.call(bob, 'echo', deep);
    expect(outcome).toMatchObject({ is_error: true, error: { code: 'INVALID_ARGUMENTS' } });
    expect(calls).toEqual([]);
    expect(counted()).toMatchObject({ calls: 1, errors: 1 });
  });

  it('counts a tool that is not found as a failed call, and throws TOOL_NOT_FOUND', async () => {
    const { service, counted } = setup(null);
    await expect(service.call(bob, 'nothing', {})).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    expect(counted()).toMatchObject({ calls: 1, errors: 1 });
  });

  it('gives a generated tool its arguments as an object, and refuses anything else', async () => {
    const calls: string[] = [];
    const { service } = setup(runner(calls));
    await service.call(bob, 'g_sum', undefined);
    await expect(service.call(bob, 'g_sum', [1, 2])).resolves.toMatchObject({
      error: { code: 'INVALID_ARGUMENTS' },
    });
    expect(calls).toEqual(['generated {}']);
  });

  it('says so when this instance cannot run generated tools', async () => {
    const { service } = setup(null);
    await expect(service.call(bob, 'g_sum', {})).resolves.toMatchObject({
      is_error: true,
      error: { code: 'QUERY_FAILED' },
    });
  });

  it('refuses unreadable arguments as INVALID_ARGUMENTS, or as not found for a tool out of reach', async () => {
    const { service } = setup(null);
    await expect(service.refuse(bob, 'echo', 'not JSON')).resolves.toMatchObject({
      error: { code: 'INVALID_ARGUMENTS', message: 'not JSON' },
    });
    await expect(service.refuse(bob, 'nothing', 'not JSON')).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
  });
});
