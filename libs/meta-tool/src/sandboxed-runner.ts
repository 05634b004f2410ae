import type { GeneratedTool, GeneratedToolRunner, Principal, ToolCallOutcome } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { cut } from './contract';
import { GeneratedDataAccess } from './data-access';
import type { TenantScope } from './data-access';
import { META_TOOL_OPTIONS } from './options';
import type { MetaToolOptions } from './options';
import { runInSandbox } from './sandbox/sandbox';
import { sha256, ToolFiles } from './tool-files';

/**
 * Every call of a generated tool runs in its own sandboxed child (same permission model,
 * timeout and memory cap as the runtime gate). The model sees the result cut to 400
 * characters; the structured result carries all of it.
 */
@Injectable()
export class SandboxedToolRunner implements GeneratedToolRunner {
  private readonly logger = new Logger('GeneratedTools');
  private readonly files: ToolFiles;

  constructor(
    @Inject(META_TOOL_OPTIONS) private readonly options: MetaToolOptions,
    private readonly data: GeneratedDataAccess,
  ) {
    this.files = new ToolFiles(options.directory);
  }

  async run(
    tenant: TenantScope,
    tool: GeneratedTool,
    args: Record<string, unknown>,
    principal: Principal,
  ): Promise<ToolCallOutcome> {
    const { name, source, sha256 } = tool.record;
    const file = await this.files.materialize(tenant.id, name, source, sha256);
    const outcome = await runInSandbox({
      file,
      name,
      call: { args },
      timeoutMs: this.options.timeoutMs,
      memoryMb: this.options.memoryMb,
      onQuery: (sql, params) => this.data.query(tenant, sql, params),
    });
    if (!outcome.ok) {
      this.logger.warn(
        `generated tool ${tenant.id}/${name} failed for ${principal.userId}: ${outcome.stage}: ${outcome.message}`,
      );
      return {
        tool: name,
        is_error: true,
        error: {
          code: 'TOOL_FAILED',
          message: cut(`${name} failed (${outcome.stage}): ${outcome.message}`),
        },
      };
    }
    const json = JSON.stringify(outcome.result ?? null);
    return {
      tool: name,
      is_error: false,
      text: cut(json),
      result: { value: outcome.result ?? null },
    };
  }

  /** Writes every active generated tool of every tenant to disk (atomically, where missing or changed). */
  async materializeAll(
    tools: Array<{ tenantId: string; name: string; source: string; sha256: string }>,
  ): Promise<void> {
    for (const t of tools) {
      if (sha256(t.source) !== t.sha256) {
        this.logger.warn(
          `generated tool ${t.tenantId}/${t.name} is skipped at start-up: its source does not match its sha256`,
        );
        continue;
      }
      await this.files.materialize(t.tenantId, t.name, t.source, t.sha256).catch((err: unknown) => {
        this.logger.warn(
          `generated tool ${t.tenantId}/${t.name} could not be written: ${err instanceof Error ? err.message : String(err)}`,
        );
      });
    }
  }
}
