import { initSqlParser, reportToolName } from '@app/templates';
import type { ToolDefinition } from '@app/templates';
import { admitAll, storedReport } from '../catalog/fixtures.spec-helper';
import { GeneratedTool } from '../catalog/model/generated-tools';
import type { GeneratedToolRecord } from '../catalog/model/catalog-records';
import { ReportSet } from '../catalog/model/report-set';
import type { BuiltinTool } from './served-tool';
import { ToolIndex } from './tool-index';

function builtin(name: string): BuiltinTool {
  const definition: ToolDefinition = {
    name,
    description: name,
    inputSchema: { type: 'object' },
    readOnly: true,
  };
  return {
    definition,
    category: 'tools',
    call: () => Promise.reject(new Error('not called in this test')),
  };
}

function generated(name: string): GeneratedTool {
  const record: GeneratedToolRecord = {
    name,
    description: name,
    inputSchema: { type: 'object' },
    source: '',
    sha256: '',
    smokeTested: true,
    approvedBy: 'rex',
    status: 'active',
  };
  return new GeneratedTool(record);
}

const names = (tools: Array<{ definition: ToolDefinition }>) =>
  tools.map((t) => t.definition.name).sort();

describe('ToolIndex', () => {
  let reports: ReportSet;
  beforeAll(async () => {
    await initSqlParser();
    reports = ReportSet.of(
      [
        storedReport('revenue', 'sales'),
        storedReport('margin', 'sales'),
        storedReport('stock', 'inventory'),
      ],
      'scope',
      admitAll,
    );
  }, 30_000);

  it('finds every kind of tool by name', () => {
    const index = new ToolIndex(reports, [generated('g_one')], [builtin('meta_tool')], 1);
    expect(index.get(reportToolName('revenue'))?.kind).toBe('report');
    expect(index.get('g_one')?.kind).toBe('generated');
    expect(index.get('meta_tool')?.kind).toBe('builtin');
    expect(index.get('nothing')).toBeUndefined();
  });

  it('lets a built-in win a name clash, then a report, then a generated tool', () => {
    const clash = reportToolName('revenue');
    const index = new ToolIndex(
      reports,
      [generated(clash), generated('meta_tool')],
      [builtin(clash)],
      1,
    );
    expect(index.get(clash)?.kind).toBe('builtin');
    expect(index.all.filter((t) => t.definition.name === clash)).toHaveLength(1);
    const shadowed = new ToolIndex(reports, [generated(reportToolName('stock'))], [], 1);
    expect(shadowed.get(reportToolName('stock'))?.kind).toBe('report');
    expect(shadowed.all).toHaveLength(3);
  });

  it('gathers what grants reach: categories, single reports, and every non-report', () => {
    const index = new ToolIndex(reports, [generated('g_one')], [builtin('meta_tool')], 1);
    expect(names(index.reachable(['sales'], []))).toEqual(
      ['g_one', 'meta_tool', reportToolName('margin'), reportToolName('revenue')].sort(),
    );
    expect(names(index.reachable([], ['stock']))).toEqual(
      ['g_one', 'meta_tool', reportToolName('stock')].sort(),
    );
  });

  it('lists everything once for admins', () => {
    const index = new ToolIndex(reports, [generated('g_one')], [builtin('meta_tool')], 3);
    expect(names(index.all)).toEqual(
      [
        'g_one',
        'meta_tool',
        reportToolName('margin'),
        reportToolName('revenue'),
        reportToolName('stock'),
      ].sort(),
    );
    expect(index.all).toBe(index.all);
    expect(index.builtinsVersion).toBe(3);
  });
});
