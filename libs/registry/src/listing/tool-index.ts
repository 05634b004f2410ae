import { reportToolName } from '@app/templates';
import type { GeneratedTool } from '../catalog/model/generated-tools';
import type { ReportSet } from '../catalog/model/report-set';
import type { BuiltinTool, ServedTool } from './served-tool';

/**
 * One tenant catalog's tools by name: built-ins win a name clash, then reports, then
 * generated tools. Report tools come from the catalog's ReportSet (indexed by name and
 * category there), so building this costs the generated tools and built-ins only. A caller's
 * visible set is gathered from the categories and names its grants reach: its cost follows
 * the size of that set, not the size of the catalog.
 */
export class ToolIndex {
  private readonly builtins = new Map<string, ServedTool>();
  /** generated tools not shadowed by a report or a built-in */
  private readonly generated = new Map<string, ServedTool>();
  private merged?: ServedTool[];

  constructor(
    private readonly reports: ReportSet,
    generated: Iterable<GeneratedTool>,
    builtins: readonly BuiltinTool[],
    readonly builtinsVersion: number,
  ) {
    for (const builtin of builtins)
      this.builtins.set(builtin.definition.name, {
        kind: 'builtin',
        definition: builtin.definition,
        builtin,
      });
    for (const tool of generated) {
      const name = tool.definition.name;
      if (this.builtins.has(name) || reports.tool(name)) continue;
      this.generated.set(name, { kind: 'generated', definition: tool.definition, generated: tool });
    }
  }

  get(name: string): ServedTool | undefined {
    return this.builtins.get(name) ?? this.reports.tool(name) ?? this.generated.get(name);
  }

  /** Every tool of the catalog (admins' view); built on first use. */
  get all(): ServedTool[] {
    this.merged ??= [
      ...this.generated.values(),
      ...[...this.reports.tools()].filter((t) => !this.builtins.has(t.definition.name)),
      ...this.builtins.values(),
    ];
    return this.merged;
  }

  /** The tools a caller's grants can reach: whole categories, single reports, non-reports. */
  reachable(categories: Iterable<string>, reportIds: Iterable<string>): ServedTool[] {
    const found = new Map<string, ServedTool>();
    for (const category of categories)
      for (const tool of this.reports.inCategory(category))
        if (!this.builtins.has(tool.definition.name)) found.set(tool.definition.name, tool);
    for (const id of reportIds) {
      for (const name of [reportToolName(id), id]) {
        const tool = this.get(name);
        if (tool) found.set(name, tool);
      }
    }
    for (const tool of this.generated.values()) found.set(tool.definition.name, tool);
    for (const tool of this.builtins.values()) found.set(tool.definition.name, tool);
    return [...found.values()];
  }
}
