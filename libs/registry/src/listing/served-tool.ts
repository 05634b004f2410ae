import type { ReportTool, ToolDefinition } from '@app/templates';
import type { AccessSubject } from '../access/grant-members';
import { GENERATED_CATEGORY, TOOL_AUTHOR_ROLE } from '../catalog/model/generated-tools';
import type { GeneratedTool } from '../catalog/model/generated-tools';
import type { Principal } from '../access/principal';
import type { ToolCallOutcome } from '../execution/tool-outcome';

/** A tool that is not a report (meta_tool, later generated tools): same filter, own handler. */
export interface BuiltinTool {
  readonly definition: ToolDefinition;
  /** grants of this category (or of the tool's name) make it visible */
  readonly category: string;
  /** only holders of this role see it (e.g. tool_author); without one, grants decide */
  readonly requiredRole?: string;
  call(args: unknown, principal: Principal): Promise<ToolCallOutcome>;
}

/** One entry of a caller's tool list. */
export type ServedTool =
  | { kind: 'report'; definition: ToolDefinition; report: ReportTool }
  | { kind: 'builtin'; definition: ToolDefinition; builtin: BuiltinTool }
  | { kind: 'generated'; definition: ToolDefinition; generated: GeneratedTool };

export function accessSubject(tool: ServedTool): AccessSubject {
  switch (tool.kind) {
    case 'report':
      return { id: tool.report.report.id, category: tool.report.report.category };
    case 'builtin':
      return {
        id: tool.definition.name,
        category: tool.builtin.category,
        requiredRole: tool.builtin.requiredRole,
      };
    case 'generated':
      return {
        id: tool.definition.name,
        category: GENERATED_CATEGORY,
        ownerRole: TOOL_AUTHOR_ROLE,
        adminSees: false,
      };
  }
}
