export * from './error-codes';
export * from './gateway-error';
export * from './http-errors';
export * from './mcp-errors';
export * from './startup';
export * from './tool-outcomes';
