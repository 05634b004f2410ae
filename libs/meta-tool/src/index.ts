export * from './contract';
export * from './meta-tool.module';
export * from './meta-tool.service';
export * from './options';
export * from './proposal.repository';
export * from './static-gate';
