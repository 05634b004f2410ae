import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MetaToolController } from './meta-tool.controller';

/** meta_tool's review API over HTTP (MetaToolService comes from the global MetaToolModule). */
@Module({
  imports: [AuthModule],
  controllers: [MetaToolController],
})
export class MetaToolApiModule {}
