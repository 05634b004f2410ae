import { createHash } from 'node:crypto';
import { ArgumentValidator } from '@app/templates';
import type { JsonSchema, ToolDefinition } from '@app/templates';
import type { GeneratedToolRecord } from './catalog-records';
import type { Principal } from '../../access/principal';
import type { ToolCallOutcome } from '../../execution/tool-outcome';

export const GENERATED_TOOL_RUNNER = Symbol('GENERATED_TOOL_RUNNER');
export const GENERATED_CATEGORY = 'generated';
export const TOOL_AUTHOR_ROLE = 'tool_author';

/** Runs generated tools (in a sandbox, elsewhere); provided by the meta-tool lib. */
export interface GeneratedToolRunner {
  run(
    tenant: { id: string; dataSchema: string | null; allowedTables: string[] },
    tool: GeneratedTool,
    args: Record<string, unknown>,
    principal: Principal,
  ): Promise<ToolCallOutcome>;
}

export const NEVER_SMOKE_TESTED = '(never smoke-tested: approved without a test call)';

/**
 * A generated tool the registry may serve: its record checked. Its schema guides the model
 * only: arguments are not validated against it at call time (rule 4: `run` defends itself),
 * so no keyword of a generated schema ever executes in the gateway on a call.
 */
export class GeneratedTool {
  readonly definition: ToolDefinition;

  constructor(readonly record: GeneratedToolRecord) {
    this.definition = {
      name: record.name,
      description: record.smokeTested
        ? record.description
        : `${record.description} ${NEVER_SMOKE_TESTED}`,
      inputSchema: record.inputSchema as JsonSchema,
      readOnly: true,
    };
  }
}

/** Why a stored generated tool cannot be served, or undefined when it can. */
export function generatedToolProblem(record: GeneratedToolRecord): string | undefined {
  if (record.status !== 'active') return 'disabled';
  const actual = createHash('sha256').update(record.source, 'utf8').digest('hex');
  if (actual !== record.sha256)
    return `its source does not match its sha256 (stored ${record.sha256.slice(0, 12)}…, actual ${actual.slice(0, 12)}…)`;
  const schema = record.inputSchema as { type?: unknown } | null;
  if (!schema || typeof schema !== 'object' || schema.type !== 'object')
    return 'its schema is not a JSON Schema with type "object"';
  try {
    new ArgumentValidator(schema as JsonSchema, []);
  } catch (err) {
    return `its schema does not compile: ${err instanceof Error ? err.message : String(err)}`;
  }
  return undefined;
}
