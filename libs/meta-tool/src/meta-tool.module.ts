import { Module } from '@nestjs/common';

/** meta_tool (a model proposes a tool's code) lands with its own issue; this is its seam. */
@Module({})
export class MetaToolModule {}
