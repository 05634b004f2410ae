import { RegistryModule } from '@app/registry';
import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';

/** `/healthz`, `/readyz` and `/metrics` on the API port. */
@Module({
  imports: [RegistryModule],
  controllers: [HealthController],
})
export class HealthModule {}
