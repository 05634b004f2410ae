import { reportToolName } from '@app/templates';
import type { ServedTool } from './served-tool';

/**
 * One tenant catalog's tools (generated, reports, built-ins, merged) indexed by name and by
 * category, built once per catalog version. A caller's visible set is gathered from the
 * categories and names its grants reach, so its cost follows the size of that set, not the
 * size of the catalog.
 */
export class ToolIndex {
  readonly all: ServedTool[];
  private readonly byName = new Map<string, ServedTool>();
  private readonly byCategory = new Map<string, ServedTool[]>();
  /** tools not reached through report grants: generated tools and built-ins */
  private readonly unindexed: ServedTool[] = [];

  constructor(
    merged: ServedTool[],
    readonly builtinsVersion: number,
  ) {
    this.all = merged;
    for (const tool of merged) {
      this.byName.set(tool.definition.name, tool);
      if (tool.kind !== 'report') {
        this.unindexed.push(tool);
        continue;
      }
      const category = tool.report.report.category;
      const list = this.byCategory.get(category);
      if (list) list.push(tool);
      else this.byCategory.set(category, [tool]);
    }
  }

  get(name: string): ServedTool | undefined {
    return this.byName.get(name);
  }

  /** The tools a caller's grants can reach: whole categories, single reports, non-reports. */
  reachable(categories: Iterable<string>, reportIds: Iterable<string>): ServedTool[] {
    const found = new Map<string, ServedTool>();
    for (const category of categories)
      for (const tool of this.byCategory.get(category) ?? []) found.set(tool.definition.name, tool);
    for (const id of reportIds) {
      for (const name of [reportToolName(id), id]) {
        const tool = this.byName.get(name);
        if (tool) found.set(name, tool);
      }
    }
    for (const tool of this.unindexed) found.set(tool.definition.name, tool);
    return [...found.values()];
  }
}
