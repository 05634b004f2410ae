/** Moved to model/ (#43); kept while libs/registry/src/execution imports this path. */
export * from './model/generated-tools';
