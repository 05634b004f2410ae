export * from './meta-tool.module';
