import { ArgumentValidator } from '@app/templates';
import type { JsonSchema } from '@app/templates';
import { Inject, Injectable } from '@nestjs/common';
import { cut } from './contract';
import { GeneratedDataAccess } from './data-access';
import type { TenantScope } from './data-access';
import { META_TOOL_OPTIONS } from './options';
import type { MetaToolOptions } from './options';
import type { Proposal } from './proposal.repository';
import { runInSandbox } from './sandbox/sandbox';
import { ToolFiles } from './tool-files';

export type RuntimeVerdict =
  | {
      ok: true;
      description: string;
      inputSchema: JsonSchema;
      smokeTested: boolean;
      preview: string | null;
    }
  | { ok: false; message: string };

/**
 * The runtime gate: write `.tmp-<name>-<ts>-<rand>.mjs`, import it in the sandbox, check the
 * contract, make one real call with the test arguments, and only then rename it into place.
 * Any failure removes the temp file; the installed version, if any, is untouched.
 */
@Injectable()
export class RuntimeGate {
  readonly files: ToolFiles;

  constructor(
    @Inject(META_TOOL_OPTIONS) private readonly options: MetaToolOptions,
    private readonly data: GeneratedDataAccess,
  ) {
    this.files = new ToolFiles(options.directory);
  }

  async check(tenant: TenantScope, proposal: Proposal): Promise<RuntimeVerdict> {
    const temp = await this.files.writeTemp(tenant.id, proposal.name, proposal.source);
    try {
      const verdict = await this.smoke(tenant, proposal, temp);
      if (verdict.ok) await this.files.promote(temp, tenant.id, proposal.name);
      return verdict;
    } finally {
      await this.files.discard(temp);
    }
  }

  private async smoke(
    tenant: TenantScope,
    proposal: Proposal,
    file: string,
  ): Promise<RuntimeVerdict> {
    const outcome = await runInSandbox({
      file,
      name: proposal.name,
      call: proposal.testArgs ? { args: proposal.testArgs } : undefined,
      timeoutMs: this.options.timeoutMs,
      memoryMb: this.options.memoryMb,
      onQuery: (sql, params) => this.data.query(tenant, sql, params),
    });
    if (!outcome.ok) return { ok: false, message: `${outcome.stage}: ${outcome.message}` };
    let validator: ArgumentValidator;
    try {
      validator = new ArgumentValidator(outcome.schema as JsonSchema, []);
    } catch (err) {
      return {
        ok: false,
        message: `contract: the schema does not compile: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    if (proposal.testArgs) {
      const checked = validator.check(proposal.testArgs);
      if (!checked.ok)
        return {
          ok: false,
          message: `contract: the test arguments do not match the tool's own schema: ${checked.message}`,
        };
    }
    const description = proposal.description.trim() || outcome.description;
    const preview = outcome.called ? cut(JSON.stringify(outcome.result ?? null)) : null;
    return {
      ok: true,
      description,
      inputSchema: outcome.schema as JsonSchema,
      smokeTested: outcome.called,
      preview,
    };
  }
}
