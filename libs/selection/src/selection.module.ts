import { LIST_SHAPER } from '@app/registry';
import { Module } from '@nestjs/common';
import { DISCLOSURE_OPTIONS, DisclosurePolicy } from './disclosure';
import type { DisclosureOptions } from './disclosure';
import { ConfigurableSelectionModule } from './selection.module-definition';
import { SelectionService } from './selection.service';

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
      useFactory: (options: DisclosureOptions) => new DisclosurePolicy(options),
    },
    { provide: LIST_SHAPER, useExisting: DisclosurePolicy },
    SelectionService,
  ],
  exports: [DisclosurePolicy, LIST_SHAPER, SelectionService],
})
export class SelectionModule extends ConfigurableSelectionModule {}
