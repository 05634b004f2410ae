import type { DatabaseHandle } from '@app/db';
import { BuiltinTools, DATABASE, GENERATED_TOOL_RUNNER, RegistryModule } from '@app/registry';
import { Global, Inject, Module } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { GeneratedDataAccess } from './data-access';
import { metaToolBuiltin } from './meta-tool.builtin';
import { MetaToolService } from './meta-tool.service';
import { ProposalRepository } from './proposal.repository';
import { RuntimeGate } from './runtime-gate';
import { SandboxedToolRunner } from './sandboxed-runner';

/**
 * meta_tool and the generated tools it installs. Needs META_TOOL_OPTIONS from the app.
 * Global so the registry's tool calls can reach the sandboxed runner.
 */
@Global()
@Module({
  imports: [RegistryModule],
  providers: [
    GeneratedDataAccess,
    MetaToolService,
    RuntimeGate,
    SandboxedToolRunner,
    { provide: GENERATED_TOOL_RUNNER, useExisting: SandboxedToolRunner },
  ],
  exports: [MetaToolService, GENERATED_TOOL_RUNNER],
})
export class MetaToolModule implements OnModuleInit, OnApplicationBootstrap {
  constructor(
    private readonly builtins: BuiltinTools,
    private readonly service: MetaToolService,
    private readonly runner: SandboxedToolRunner,
    @Inject(DATABASE) private readonly database: DatabaseHandle,
  ) {}

  onModuleInit(): void {
    this.builtins.register(metaToolBuiltin(this.service));
  }

  /** Every instance writes every tenant's active generated tools to disk at start-up. */
  async onApplicationBootstrap(): Promise<void> {
    await this.runner.materializeAll(await new ProposalRepository(this.database).activeTools());
  }
}
