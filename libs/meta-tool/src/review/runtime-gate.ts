import { ArgumentValidator } from '@app/templates';
import type { JsonSchema } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { cut, MAX_DESCRIPTION_CHARS, MAX_SCHEMA_BYTES } from '../contract';
import type { RunScope } from '../run/data-access';
import type { SandboxOutcome } from '../run/sandbox/sandbox';
import type { Proposal } from '../store/proposal.repository';
import { schemaProblems } from '../propose/schema-safety';
import { SandboxedToolRunner } from '../run/sandboxed-runner';

export type RuntimeVerdict =
  | {
      ok: true;
      description: string;
      inputSchema: JsonSchema;
      smokeTested: boolean;
      preview: string | null;
    }
  | { ok: false; message: string };

type ToolContract = Extract<SandboxOutcome, { ok: true }>['contract'];

/** What is wrong with the contract the module exported, and its schema parsed when it is JSON. */
function contractProblems(
  contract: ToolContract,
  name: string,
): { problems: string[]; schema: unknown } {
  const problems = [...contract.problems];
  if (contract.name !== name)
    problems.push(
      `name must equal the file name "${name}"; got ${cut(JSON.stringify(contract.name) ?? 'undefined', 80)}`,
    );
  if (typeof contract.description !== 'string' || contract.description.trim() === '')
    problems.push('description must be a non-empty string');
  else if (contract.description.length > MAX_DESCRIPTION_CHARS)
    problems.push(
      `description is ${contract.description.length} characters; the limit is ${MAX_DESCRIPTION_CHARS}`,
    );
  let schema: unknown;
  if (contract.schema === null)
    problems.push("schema must be a JSON Schema object with type: 'object'");
  else if (contract.schema.length > MAX_SCHEMA_BYTES)
    problems.push(
      `schema is ${contract.schema.length} bytes of JSON; the limit is ${MAX_SCHEMA_BYTES}`,
    );
  else {
    schema = JSON.parse(contract.schema);
    if (!schema || typeof schema !== 'object' || (schema as { type?: unknown }).type !== 'object')
      problems.push("schema must be a JSON Schema object with type: 'object'");
    else problems.push(...schemaProblems(schema));
  }
  if (!contract.run) problems.push('run must be a function run(args, ctx)');
  return { problems, schema };
}

/** Why the schema does not compile or the test arguments do not match it; undefined if fine. */
function testArgumentsRefusal(
  schema: JsonSchema,
  testArgs: Record<string, unknown> | null,
): string | undefined {
  let validator: ArgumentValidator;
  try {
    validator = new ArgumentValidator(schema, []);
  } catch (err) {
    return `the schema does not compile: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!testArgs) return undefined;
  // safe to evaluate here: the schema has no regular expression of the tool's choosing
  const checked = validator.check(testArgs);
  return checked.ok
    ? undefined
    : `the test arguments do not match the tool's own schema: ${checked.message}`;
}

/**
 * The runtime gate: load the code in the sandbox, check the contract (name, description and
 * schema caps, no regex keyword), make one real call with the test arguments as the proposer
 * (their reports, their tables), and say what happened. It writes nothing: installing is the
 * service's one recoverable step.
 */
@Injectable()
export class RuntimeGate {
  constructor(private readonly runner: SandboxedToolRunner) {}

  async check(scope: RunScope, proposal: Proposal): Promise<RuntimeVerdict> {
    const outcome = await this.runner.execute({
      scope,
      tenantId: proposal.tenantId,
      name: proposal.name,
      source: proposal.source,
      call: proposal.testArgs ? { args: proposal.testArgs } : undefined,
    });
    if (!outcome.ok) return { ok: false, message: `${outcome.stage}: ${outcome.message}` };
    const { contract } = outcome;
    const { problems, schema } = contractProblems(contract, proposal.name);
    if (problems.length > 0) return { ok: false, message: `contract: ${problems.join('; ')}` };
    const refusal = testArgumentsRefusal(schema as JsonSchema, proposal.testArgs);
    if (refusal) return { ok: false, message: `contract: ${refusal}` };
    const description = proposal.description.trim() || (contract.description as string);
    const preview = outcome.called ? cut(outcome.resultJson) : null;
    return {
      ok: true,
      description,
      inputSchema: schema as JsonSchema,
      smokeTested: outcome.called,
      preview,
    };
  }
}
