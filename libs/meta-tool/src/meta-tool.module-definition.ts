import { ConfigurableModuleBuilder } from '@nestjs/common';
import { META_TOOL_OPTIONS } from './options';
import type { MetaToolOptions } from './options';

/**
 * `MetaToolModule.forRoot(options)` / `.forRootAsync({ imports?, inject, useFactory })`: the
 * options land under META_TOOL_OPTIONS. Always global, so the registry's tool calls reach the
 * sandboxed runner (GENERATED_TOOL_RUNNER); it uses the registry registered once by the app.
 */
export const { ConfigurableModuleClass: ConfigurableMetaToolModule } =
  new ConfigurableModuleBuilder<MetaToolOptions>({ optionsInjectionToken: META_TOOL_OPTIONS })
    .setClassMethodName('forRoot')
    .setExtras({}, (definition) => ({ ...definition, global: true }))
    .build();
