import { TENANT_QUERY_SLOTS } from '@app/registry';
import { Global, Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { AuthModule } from '../auth/auth.module';
import { Limits } from './limits';
import { PINO_LOGGER, RequestPipeline } from './request-pipeline';

/** The request pipeline, its limits and the pino logger, for every module. */
@Global()
@Module({})
export class PipelineModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: PipelineModule,
      imports: [AuthModule],
      providers: [
        { provide: PINO_LOGGER, useValue: logger },
        Limits,
        { provide: TENANT_QUERY_SLOTS, useExisting: Limits },
        RequestPipeline,
      ],
      exports: [PINO_LOGGER, Limits, TENANT_QUERY_SLOTS, RequestPipeline],
    };
  }
}
