/** Moved to load/ (#43); kept while libs/registry/src/execution imports this path. */
export * from './load/catalog.repository';
