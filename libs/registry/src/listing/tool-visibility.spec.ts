import { initSqlParser, reportToolName } from '@app/templates';
import type { Principal } from '../access/principal';
import { BuiltinTools } from './builtin-tools';
import { salesCatalog } from './fixtures.spec-helper';
import type { BuiltinTool, ServedTool } from './served-tool';
import { ToolVisibility } from './tool-visibility';

const who = (userId: string, roles: string[]): Principal => ({
  tenantId: 'acme',
  userId,
  roles,
  claims: {},
});
const analyst = who('bob', ['analyst']);
const admin = who('root', ['admin']);
const denied = who('eve', ['analyst']);

function authorTool(): BuiltinTool {
  return {
    definition: {
      name: 'author_tool',
      description: 'x',
      inputSchema: { type: 'object' },
      readOnly: true,
    },
    category: 'tools',
    requiredRole: 'tool_author',
    call: () => Promise.reject(new Error('not called in this test')),
  };
}

function setup() {
  const catalog = salesCatalog();
  const builtins = new BuiltinTools();
  return { catalog, builtins, visibility: new ToolVisibility(builtins) };
}

const names = (tools: ServedTool[]) => tools.map((t) => t.definition.name);
const roles = (p: Principal, c: ReturnType<typeof setup>['catalog']) => c.access.effectiveRoles(p);

describe('ToolVisibility', () => {
  // loading the parser (WebAssembly) can take seconds on a loaded machine
  beforeAll(() => initSqlParser(), 30_000);

  it("lists what the caller's grants reach, in name order; admins see every report", async () => {
    const { catalog, visibility } = setup();
    expect(
      names(await visibility.visible(catalog, analyst, roles(analyst, catalog), undefined)),
    ).toEqual([reportToolName('margin'), reportToolName('revenue')]);
    expect(
      names(await visibility.visible(catalog, admin, roles(admin, catalog), undefined)),
    ).toHaveLength(3);
  });

  it('keeps only the tools of a business context, and honours a per-user denial', async () => {
    const { catalog, visibility } = setup();
    expect(
      names(await visibility.visible(catalog, analyst, roles(analyst, catalog), 'margins')),
    ).toEqual([reportToolName('margin')]);
    expect(
      names(await visibility.visible(catalog, denied, roles(denied, catalog), undefined)),
    ).toEqual([reportToolName('margin')]);
  });

  it('answers usable with the tool, or undefined alike for forbidden and missing ones', () => {
    const { catalog, visibility } = setup();
    expect(visibility.usable(catalog, analyst, reportToolName('revenue'))?.kind).toBe('report');
    expect(visibility.usable(catalog, analyst, reportToolName('payroll'))).toBeUndefined();
    expect(visibility.usable(catalog, denied, reportToolName('revenue'))).toBeUndefined();
    expect(visibility.usable(catalog, analyst, 'no_such_tool')).toBeUndefined();
  });

  it('keeps one index per catalog and rebuilds it when a built-in is registered', async () => {
    const { catalog, builtins, visibility } = setup();
    const first = visibility.index(catalog);
    expect(visibility.index(catalog)).toBe(first);
    builtins.register(authorTool());
    const second = visibility.index(catalog);
    expect(second).not.toBe(first);
    const author = who('ann', ['tool_author']);
    expect(visibility.usable(catalog, author, 'author_tool')?.kind).toBe('builtin');
    expect(visibility.usable(catalog, analyst, 'author_tool')).toBeUndefined();
    expect(
      names(await visibility.visible(catalog, author, roles(author, catalog), undefined)),
    ).toEqual(['author_tool']);
  });
});
