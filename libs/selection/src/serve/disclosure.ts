import { accessSubject } from '@app/registry';
import type { ListShaper, ServedTool } from '@app/registry';
import type { ToolDefinition } from '@app/templates';
import { DISCLOSURE_TOOLS } from './disclosure-tools';

export interface DisclosureOptions {
  /** past this many visible tools, lists carry the built-ins and a few tools inline */
  inlineMax: number;
  /** how many of the caller's tools are listed inline beside the built-ins */
  inlineCount: number;
}

export const DISCLOSURE_OPTIONS = Symbol('DISCLOSURE_OPTIONS');
export const DEFAULT_DISCLOSURE: DisclosureOptions = { inlineMax: 40, inlineCount: 10 };

/**
 * Progressive disclosure: a caller who may use more than `inlineMax` tools gets
 * search_tools, describe_tools and call_tool, the tools its session found (MCP), and a few
 * tools inline, one per category in turn so every area is shown. At or under the threshold
 * the list is every visible tool, as before.
 */
export class DisclosurePolicy implements ListShaper {
  readonly tag: string;

  constructor(readonly options: DisclosureOptions = DEFAULT_DISCLOSURE) {
    this.tag = `d${options.inlineMax}.${options.inlineCount}`;
  }

  applies(visibleCount: number): boolean {
    return visibleCount > this.options.inlineMax;
  }

  shape(tools: readonly ServedTool[], found: readonly string[] = []): ToolDefinition[] {
    if (!this.applies(tools.length)) return tools.map((t) => t.definition);
    const byName = new Map(tools.map((t) => [t.definition.name, t]));
    const listed = new Map<string, ToolDefinition>();
    for (const d of DISCLOSURE_TOOLS) listed.set(d.name, d);
    for (const name of found) {
      const tool = byName.get(name);
      if (tool && !listed.has(name)) listed.set(name, tool.definition);
    }
    for (const tool of inlinePicks(tools, this.options.inlineCount)) {
      if (!listed.has(tool.definition.name)) listed.set(tool.definition.name, tool.definition);
    }
    return [...listed.values()];
  }
}

/** `count` tools, one per category in turn (categories and names in order): a sample of every area. */
function inlinePicks(tools: readonly ServedTool[], count: number): ServedTool[] {
  const byCategory = new Map<string, ServedTool[]>();
  for (const tool of tools) {
    const category = accessSubject(tool).category;
    let list = byCategory.get(category);
    if (!list) byCategory.set(category, (list = []));
    list.push(tool);
  }
  const queues = [...byCategory.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, list]) => list.sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1)));
  const out: ServedTool[] = [];
  for (let round = 0; out.length < count; round++) {
    let any = false;
    for (const queue of queues) {
      if (round < queue.length && out.length < count) {
        out.push(queue[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}
