import { TOOL_AUTHOR_ROLE, toolFailure } from '@app/registry';
import type { BuiltinTool, Principal, ToolCallOutcome } from '@app/registry';
import { ArgumentValidator } from '@app/templates';
import type { JsonSchema } from '@app/templates';
import {
  MAX_DESCRIPTION_CHARS,
  MAX_NAME_CHARS,
  MAX_SOURCE_BYTES,
  META_TOOL_NAME,
} from './contract';
import type { ProposalInput } from './contract';
import type { MetaToolService } from './meta-tool.service';

const SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    proposal_id: {
      type: 'string',
      description:
        'ask about an earlier proposal instead: its state and, once decided, the full outcome of the gates',
    },
    name: {
      type: 'string',
      description: `tool name, ^[a-z][a-z0-9_]*$, at most ${MAX_NAME_CHARS} characters, equal to the module's name`,
    },
    code: {
      type: 'string',
      description: `an ES module without imports: export default { name, description, schema, run(args, ctx) }. ctx.report(id, args) runs a report as the caller and returns its page; ctx.query(sql, params) runs read-only SQL over the caller's tables; ctx.user is the caller (user_id, tenant, roles, claims). No host modules, network, files or timers. At most ${MAX_SOURCE_BYTES} bytes`,
    },
    testArgs: {
      type: 'object',
      description: 'arguments for one real smoke call before install (recommended)',
    } as JsonSchema,
    description: {
      type: 'string',
      description: `overrides the module's description; at most ${MAX_DESCRIPTION_CHARS} characters`,
    },
  },
  additionalProperties: false,
};

const validator = new ArgumentValidator(SCHEMA, []);

/** meta_tool as a built-in: visible to holders of tool_author only, in every protocol. */
export function metaToolBuiltin(service: MetaToolService): BuiltinTool {
  return {
    definition: {
      name: META_TOOL_NAME,
      description:
        'Propose the code of a new tool, or ask about one with {"proposal_id"}. A proposal passes a static check, a human review and a sandboxed test run before it exists; the call returns "pending approval <id>" (or the outcome, when the review is quick), and the tool appears in a later tool list once installed.',
      inputSchema: SCHEMA,
      readOnly: false,
    },
    category: 'builtin',
    requiredRole: TOOL_AUTHOR_ROLE,
    async call(args: unknown, principal: Principal): Promise<ToolCallOutcome> {
      const checked = validator.check(args);
      if (!checked.ok) return toolFailure(META_TOOL_NAME, 'INVALID_ARGUMENTS', checked.message);
      return service.propose(principal, checked.args as unknown as ProposalInput);
    },
  };
}
