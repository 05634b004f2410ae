export * from './conversation';
export * from './errors';
export * from './search-doc';
export * from './search-index';
export * from './selector';
export * from './text';
export * from './vocabulary';
export * from './disclosure-tools';
