import type { ToolDefinition } from '@app/templates';
import type { ServedTool } from './served-tool';

/**
 * What a tool list holds for a caller's visible set, when it is not simply every tool (the
 * selection lib's progressive disclosure past TOOLS_INLINE_MAX). The same visible set must
 * always give the same list: list bodies are cached per toolset key.
 */
export interface ListShaper {
  /** part of the L2 key, so instances with other settings never share a body */
  readonly tag: string;
  shape(tools: readonly ServedTool[]): ToolDefinition[];
}

export const LIST_SHAPER = Symbol('LIST_SHAPER');
