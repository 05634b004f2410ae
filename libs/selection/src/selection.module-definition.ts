import { ConfigurableModuleBuilder } from '@nestjs/common';
import { DISCLOSURE_OPTIONS } from './disclosure';
import type { DisclosureOptions } from './disclosure';

/**
 * `SelectionModule.forRoot(options)` / `.forRootAsync({ imports?, inject, useFactory })`: the
 * disclosure thresholds land under DISCLOSURE_OPTIONS. Always global, because the registry's
 * CatalogService shapes lists with the disclosure policy (LIST_SHAPER) and cannot import this lib.
 */
export const { ConfigurableModuleClass: ConfigurableSelectionModule } =
  new ConfigurableModuleBuilder<DisclosureOptions>({ optionsInjectionToken: DISCLOSURE_OPTIONS })
    .setClassMethodName('forRoot')
    .setExtras({}, (definition) => ({ ...definition, global: true }))
    .build();
