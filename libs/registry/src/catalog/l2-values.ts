/** Moved to cache/ (#43); kept while libs/registry/src/execution imports this path. */
export * from './cache/l2-values';
