export * from './connection';
export * from './database';
export * from './demo-catalog';
export * from './migrate';
export * from './seed';
export * from './type-parsers';
