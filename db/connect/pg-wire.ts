import type { Socket } from 'node:net';

/*
 * The parts of pg's Connection and messages a GuardedRead drives (pg does not type them):
 * the protocol messages it writes, and the answers it listens for.
 */

/** answers pg's Client does not pass to the active query; the connection emits them */
export type Answer = 'parseComplete' | 'bindComplete' | 'closeComplete';

export interface Connection {
  stream: Socket;
  on(event: Answer, listener: () => void): unknown;
  removeListener(event: Answer, listener: () => void): unknown;
  prependListener(event: 'readyForQuery', listener: (msg: { status?: string }) => void): unknown;
  removeListener(event: 'readyForQuery', listener: (msg: { status?: string }) => void): unknown;
  close(msg: { type: 'S'; name: string }): void;
  parse(query: { text: string; name?: string; types?: number[] }): void;
  bind(config: { statement?: string; values?: unknown[] }): void;
  describe(msg: { type: 'P' | 'S'; name?: string }): void;
  execute(config: { rows?: number }): void;
  sync(): void;
}

export interface RowDescription {
  fields: Array<{ name: string; dataTypeID: number }>;
}

export type Parser = (value: string) => unknown;
export type GetTypeParser = (oid: number, format: 'text') => Parser;
