import { BuiltinTools, GENERATED_TOOL_RUNNER } from '@app/registry';
import { Module } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { GeneratedDataAccess } from './run/data-access';
import { ProposalDecisions } from './store/decision.repository';
import { DecisionEvents } from './review/decision-events';
import { DecisionFeed } from './decision-feed';
import { GateMetrics } from './review/gate-metrics';
import { GeneratedToolControls } from './review/generated-tool-controls';
import { GeneratedToolRepository } from './store/generated-tool.repository';
import { GeneratedToolStatsRepository } from './store/generated-tool-stats.repository';
import { metaToolBuiltin } from './meta-tool.builtin';
import { ConfigurableMetaToolModule } from './meta-tool.module-definition';
import { MetaToolService } from './meta-tool.service';
import { ProposalRepository } from './store/proposal.repository';
import { ProposalReview } from './review/proposal-review';
import { RuntimeGate } from './review/runtime-gate';
import { SandboxedToolRunner } from './run/sandboxed-runner';
import { ToolWriteQueue } from './review/serial-queue';
import { StaticChecks } from './propose/static-checks';
import { ToolInstaller } from './review/tool-installer';

/**
 * meta_tool and the generated tools it installs, registered once by the app with
 * `MetaToolModule.forRootAsync(...)` (global: the registry's tool calls reach the sandboxed
 * runner). Uses the global RegistryModule and REGISTRY_OPTIONS.
 */
@Module({
  providers: [
    DecisionEvents,
    DecisionFeed,
    GateMetrics,
    GeneratedDataAccess,
    GeneratedToolControls,
    GeneratedToolRepository,
    GeneratedToolStatsRepository,
    MetaToolService,
    ProposalDecisions,
    ProposalRepository,
    ProposalReview,
    RuntimeGate,
    SandboxedToolRunner,
    StaticChecks,
    ToolInstaller,
    ToolWriteQueue,
    { provide: GENERATED_TOOL_RUNNER, useExisting: SandboxedToolRunner },
  ],
  exports: [MetaToolService, GeneratedToolControls, SandboxedToolRunner, GENERATED_TOOL_RUNNER],
})
export class MetaToolModule
  extends ConfigurableMetaToolModule
  implements OnModuleInit, OnApplicationBootstrap
{
  private readonly logger = new Logger('MetaTool');

  constructor(
    private readonly builtins: BuiltinTools,
    private readonly service: MetaToolService,
    private readonly runner: SandboxedToolRunner,
    private readonly tools: GeneratedToolRepository,
  ) {
    super();
  }

  onModuleInit(): void {
    if (this.service.options.enabled) this.builtins.register(metaToolBuiltin(this.service));
    else
      this.logger.warn(
        'META_TOOL_ENABLED=0: meta_tool is not offered and generated tools do not run',
      );
    const layers = this.runner.layers();
    const wrapper = {
      bubblewrap:
        'bubblewrap (no network, own PID namespace, read-only view of system libraries, node and node_modules)',
      unshare: 'unshare -rn (no network)',
      none: 'none (bubblewrap and unshare -rn unavailable or META_TOOL_NETWORK_ISOLATION=0; the engine alone has no network)',
    }[layers.wrapper];
    this.logger.log(
      `generated tools run in ${layers.engine} inside a pool of ${layers.pool_size} child processes; permission model: ${layers.permission_model ? 'on' : 'off'}; namespaces: ${wrapper}`,
    );
  }

  /** Every instance writes every tenant's active generated tools to disk at start-up. */
  async onApplicationBootstrap(): Promise<void> {
    await this.runner.materializeAll(await this.tools.activeTools());
  }
}
