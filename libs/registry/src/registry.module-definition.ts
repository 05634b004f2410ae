import { ConfigurableModuleBuilder } from '@nestjs/common';
import { REGISTRY_OPTIONS } from './tokens';
import type { RegistryOptions } from './tokens';

/**
 * `RegistryModule.forRoot(options)` / `.forRootAsync({ imports?, inject, useFactory })`: the
 * options land under REGISTRY_OPTIONS. Always global: one registration per application, and
 * every other module (features, meta_tool, selection) reaches the same instances without
 * importing the class again (a second import would build a second catalog).
 */
export const { ConfigurableModuleClass: ConfigurableRegistryModule } =
  new ConfigurableModuleBuilder<RegistryOptions>({ optionsInjectionToken: REGISTRY_OPTIONS })
    .setClassMethodName('forRoot')
    .setExtras({}, (definition) => ({ ...definition, global: true }))
    .build();
