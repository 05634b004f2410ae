import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';

/** `/healthz`, `/readyz` and `/metrics` on the API port. */
@Module({
  controllers: [HealthController],
})
export class HealthModule {}
