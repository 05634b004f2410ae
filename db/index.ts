export * from './connection';
export * from './database';
export * from './guarded-read';
export * from './demo-catalog';
export * from './migrate';
export * from './seed';
export * from './type-parsers';
export * from './report-rows.repository';
