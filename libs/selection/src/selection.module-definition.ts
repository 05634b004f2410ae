import { ConfigurableModuleBuilder } from '@nestjs/common';
import { DISCLOSURE_OPTIONS } from './serve/disclosure';
import type { DisclosureOptions } from './serve/disclosure';
import type { SignalOptions } from './signal-options';

/** The disclosure thresholds, and the ranking signals (defaults: DEFAULT_SIGNALS). */
export type SelectionOptions = DisclosureOptions & { signals?: SignalOptions };

/**
 * `SelectionModule.forRoot(options)` / `.forRootAsync({ imports?, inject, useFactory })`: the
 * disclosure thresholds land under DISCLOSURE_OPTIONS. Always global, because the registry's
 * CatalogService shapes lists with the disclosure policy (LIST_SHAPER) and cannot import this lib.
 */
export const { ConfigurableModuleClass: ConfigurableSelectionModule } =
  new ConfigurableModuleBuilder<SelectionOptions>({ optionsInjectionToken: DISCLOSURE_OPTIONS })
    .setClassMethodName('forRoot')
    .setExtras({}, (definition) => ({ ...definition, global: true }))
    .build();
