import { LIST_SHAPER, RegistryModule } from '@app/registry';
import { Global, Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { DisclosurePolicy } from './disclosure';
import type { DisclosureOptions } from './disclosure';
import { SelectionService } from './selection.service';

/**
 * Tool selection. Global, because the registry's CatalogService shapes lists with the
 * disclosure policy (LIST_SHAPER) and cannot import this lib.
 */
@Global()
@Module({})
export class SelectionModule {
  static forRoot<A extends unknown[]>(
    options: (...deps: A) => DisclosureOptions,
    inject: Array<string | symbol> = [],
  ): DynamicModule {
    return {
      module: SelectionModule,
      imports: [RegistryModule],
      providers: [
        {
          provide: DisclosurePolicy,
          useFactory: (...deps: unknown[]) => new DisclosurePolicy(options(...(deps as A))),
          inject,
        },
        { provide: LIST_SHAPER, useExisting: DisclosurePolicy },
        SelectionService,
      ],
      exports: [DisclosurePolicy, LIST_SHAPER, SelectionService],
    };
  }
}
