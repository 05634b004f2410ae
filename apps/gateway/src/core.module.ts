import { MetaToolModule } from '@app/meta-tool';
import type { MetaToolOptions } from '@app/meta-tool';
import { RegistryModule } from '@app/registry';
import type { RegistryOptions } from '@app/registry';
import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import type { GatewaySettings } from './config/gateway.config';
import { configNamespaces, metaToolConfig, registryConfig } from './config/namespaces';
import { DatabaseModule } from './database/database.module';

/**
 * What every Nest context of the gateway shares (the server's AppModule, the meta-tool CLI):
 * the settings parsed once and loaded as one config namespace per feature, the connections,
 * and the registry and meta_tool, each registered here once, global, with the options of its
 * namespace. Feature modules import none of them: a second import of RegistryModule would
 * build a second catalog.
 */
@Module({})
export class CoreModule {
  static forRoot(settings: GatewaySettings): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          load: configNamespaces(settings),
        }),
        DatabaseModule,
        RegistryModule.forRootAsync({
          inject: [registryConfig.KEY],
          useFactory: (options: RegistryOptions) => options,
        }),
        MetaToolModule.forRootAsync({
          inject: [metaToolConfig.KEY],
          useFactory: (options: MetaToolOptions) => options,
        }),
      ],
    };
  }
}
