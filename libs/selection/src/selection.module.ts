import { LIST_SHAPER } from '@app/registry';
import { Module } from '@nestjs/common';
import { DISCLOSURE_OPTIONS, DisclosurePolicy } from './serve/disclosure';
import { DEFAULT_SIGNALS, SELECTION_SIGNALS } from './signal-options';
import { ConfigurableSelectionModule } from './selection.module-definition';
import type { SelectionOptions } from './selection.module-definition';
import { SelectionService } from './serve/selection.service';
import { ToolUsageRepository } from './usage/tool-usage.repository';
import { UsageLearning } from './usage/usage-learning';

/**
 * Tool selection and progressive disclosure, registered once by the app with
 * `SelectionModule.forRootAsync(...)` (global: see the module definition). Uses the global
 * RegistryModule.
 */
@Module({
  providers: [
    {
      provide: DisclosurePolicy,
      inject: [DISCLOSURE_OPTIONS],
      useFactory: (options: SelectionOptions) =>
        new DisclosurePolicy({ inlineMax: options.inlineMax, inlineCount: options.inlineCount }),
    },
    {
      provide: SELECTION_SIGNALS,
      inject: [DISCLOSURE_OPTIONS],
      useFactory: (options: SelectionOptions) => options.signals ?? DEFAULT_SIGNALS,
    },
    { provide: LIST_SHAPER, useExisting: DisclosurePolicy },
    ToolUsageRepository,
    UsageLearning,
    SelectionService,
  ],
  exports: [DisclosurePolicy, LIST_SHAPER, SelectionService, UsageLearning],
})
export class SelectionModule extends ConfigurableSelectionModule {}
