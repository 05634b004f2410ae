import type { Socket } from 'node:net';
import pg from 'pg';
import type { Connection, GetTypeParser, Parser, RowDescription } from './pg-wire';
import type { PreparedStatements } from './prepared-statements';
import { ResultTooLargeError, StatementOutOfSyncError } from './read-request';
import type { GuardedReadRequest, GuardedReadResult, SqlField } from './read-request';

export * from './read-request';

/** SQLSTATEs that, at the statement's Parse or Bind, mean the bookkeeping is wrong. */
const OUT_OF_SYNC = new Set([
  '26000', // invalid_sql_statement_name: the name was lost on the server
  '42P05', // duplicate_prepared_statement: the server has a name we did not record
  '0A000', // feature_not_supported: "cached plan must not change result type"
]);

/** What the socket may carry past the byte cap (protocol framing, the row that crossed it). */
const SOCKET_SLACK = 64 * 1024;

/** pg's own mapping of JS values to wire text (dates, arrays, JSON), as its Query uses it. */
export const prepareQueryValue = (
  pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }
).utils.prepareValue;

/**
 * One round trip for the whole call: the setup statements and the query (extended protocol, so
 * its values are never spliced into text) go in one write, closed by one Sync. Without a BEGIN,
 * everything up to that Sync is one implicit transaction, which the Sync ends (and with it the
 * setup's transaction-local settings: role, read-only, limits); an error anywhere skips
 * everything up to the Sync, so the query never runs without its setup. A ReadyForQuery that
 * says a transaction is still open (only a transaction command could do that, and no
 * statement but a SELECT gets past the command-tag check) gives the connection up.
 * Rows are counted as they arrive; the socket is watched too, so a single huge row cannot be
 * buffered whole: past the cap plus a little the connection is dropped (the caller must then
 * destroy the client, which `broken` tells it).
 */
export class GuardedRead implements pg.Submittable {
  /** The connection was given up on (too large, client timeout); it must not be reused. */
  broken: Error | undefined;
  readonly done: Promise<GuardedReadResult>;

  private resolve!: (result: GuardedReadResult) => void;
  private reject!: (err: Error) => void;
  private settled = false;
  private fields: SqlField[] = [];
  private parsers: Parser[] = [];
  private rows: unknown[][] = [];
  private rowBytes = 0;
  private socketBytes = 0;
  private error: Error | undefined;
  private stream: Socket | undefined;
  private connection: Connection | undefined;
  private listening = false;
  private timer: NodeJS.Timeout | undefined;
  /** the named statement in use, and whether this write parses it */
  private named: { parse: boolean } | undefined;
  private closes: string[] = [];
  private parseCompletes = 0;
  private closeCompletes = 0;
  private bindCompletes = 0;
  private commandCompletes = 0;
  // Answers come in the order of the write: the n-th CloseComplete is the n-th Close, and the
  // statement's ParseComplete is the one after the setup's. Only these update the bookkeeping.
  private readonly onCloseComplete = (): void => {
    const name = this.closes[this.closeCompletes++];
    if (name !== undefined) this.statements?.closed(name);
  };
  private readonly onParseComplete = (): void => {
    this.parseCompletes++;
    const { statement } = this.request;
    if (this.named?.parse && statement && this.parseCompletes === this.request.setup.length + 1)
      this.statements?.parsed(statement);
  };
  private readonly onBindComplete = (): void => {
    this.bindCompletes++;
  };
  // heard before pg's own listener hands the ReadyForQuery to `handleReadyForQuery`
  private readonly onReadyForQuery = (msg: { status?: string }): void => {
    if (msg.status !== undefined && msg.status !== 'I' && !this.settled) {
      this.broken ??= new Error(`the read left a transaction open (status ${msg.status})`);
      this.error ??= this.broken;
      this.rows = [];
    }
  };
  private readonly onData = (chunk: Buffer): void => {
    this.socketBytes += chunk.length;
    if (this.socketBytes > this.request.maxBytes * 2 + SOCKET_SLACK)
      this.abandon(new ResultTooLargeError(this.socketBytes, this.request.maxBytes));
  };

  constructor(
    private readonly request: GuardedReadRequest,
    private readonly getTypeParser: GetTypeParser,
    /** this connection's named statements; without it the unnamed statement is used */
    private readonly statements?: PreparedStatements,
  ) {
    this.done = new Promise<GuardedReadResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(driverConnection: pg.Connection): void {
    // @types/pg describes an older Connection; this is the shape pg 8 has
    const connection = driverConnection as unknown as Connection;
    const stream = connection.stream;
    this.stream = stream;
    this.connection = connection;
    const { setup, statement } = this.request;
    const statements = this.statements;
    // evicted names first: nothing before them can fail and skip them
    this.closes = statements?.closing() ?? [];
    let name: string | undefined;
    let parse = true;
    if (statement && statements) {
      if (statements.isPrepared(statement)) {
        name = statement.name;
        parse = false;
      } else if (statements.mayParse(statement)) {
        name = statement.name;
      }
    }
    this.named = name === undefined ? undefined : { parse };
    connection.on('parseComplete', this.onParseComplete);
    connection.on('closeComplete', this.onCloseComplete);
    connection.on('bindComplete', this.onBindComplete);
    connection.prependListener('readyForQuery', this.onReadyForQuery);
    this.listening = true;
    stream.cork();
    try {
      for (const closing of this.closes) connection.close({ type: 'S', name: closing });
      for (const text of setup) {
        connection.parse({ text });
        connection.bind({});
        connection.execute({});
      }
      // parsed after the setup: under the tenant's search_path and role, inside the transaction
      if (parse) connection.parse({ text: this.request.text, name, types: [] });
      connection.bind({ statement: name, values: [...this.request.values] });
      connection.describe({ type: 'P' });
      connection.execute({ rows: 0 });
      connection.sync();
    } finally {
      stream.uncork();
    }
    stream.on('data', this.onData);
    this.timer = setTimeout(
      () => this.abandon(new Error('Query read timeout')),
      this.request.timeoutMs,
    );
  }

  handleRowDescription(msg: RowDescription): void {
    this.fields = msg.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
    this.parsers = this.fields.map((f) => this.getTypeParser(f.dataTypeID, 'text'));
  }

  handleDataRow(msg: { length: number; fields: Array<string | null> }): void {
    // a setup statement's own row (the folded SELECT set_config(...)): not the query's
    if (this.error || this.commandCompletes < this.request.setup.length) return;
    this.rowBytes += msg.length;
    if (this.rowBytes > this.request.maxBytes) {
      // stop keeping rows; the rest of the answer is bounded by the socket watch
      this.rows = [];
      this.error = new ResultTooLargeError(this.rowBytes, this.request.maxBytes);
      return;
    }
    const values = msg.fields;
    const row = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      row[i] = value === null ? null : this.parsers[i](value);
    }
    this.rows.push(row);
  }

  /**
   * The query's own command tag must be a SELECT's. Anything else that got this far (PREPARE,
   * DEALLOCATE: they survive the ROLLBACK and would replace or drop the connection's named
   * statements, which serve every tenant) fails the read and takes its connection with it.
   */
  handleCommandComplete(msg: { text?: string }): void {
    this.commandCompletes++;
    if (this.commandCompletes !== this.request.setup.length + 1) return;
    const tag = msg.text ?? '';
    if (!tag.startsWith('SELECT ') && !this.settled) {
      this.broken ??= new Error(`only a SELECT may run here, not ${tag.split(' ')[0] || 'this'}`);
      this.error ??= this.broken;
      this.rows = [];
    }
  }
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  /**
   * pg drops the active query on an ErrorResponse, so no ReadyForQuery reaches it: the answer is
   * settled here. The server skips to the Sync, which ends the implicit transaction.
   */
  handleError(err: Error): void {
    if (this.settled) return;
    this.error ??= this.outOfSync(err) ? new StatementOutOfSyncError(err) : err;
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  /** An error at the named statement's Parse or Bind that says the bookkeeping is wrong. */
  private outOfSync(err: Error): boolean {
    // the setup ran to the end and the statement's Bind did not complete: its Parse or Bind failed
    const setupDone = this.request.setup.length;
    if (!this.named || this.commandCompletes !== setupDone || this.bindCompletes !== setupDone)
      return false;
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !OUT_OF_SYNC.has(code)) return false;
    return this.named.parse ? code === '42P05' : code !== '42P05';
  }

  private abandon(err: Error): void {
    if (this.settled) return;
    this.broken = err;
    this.error ??= err;
    this.rows = [];
    this.stream?.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.stream?.removeListener('data', this.onData);
    if (this.listening) {
      this.connection?.removeListener('parseComplete', this.onParseComplete);
      this.connection?.removeListener('closeComplete', this.onCloseComplete);
      this.connection?.removeListener('bindComplete', this.onBindComplete);
      this.connection?.removeListener('readyForQuery', this.onReadyForQuery);
    }
    if (this.error) this.reject(this.error);
    else this.resolve({ fields: this.fields, rows: this.rows, bytes: this.rowBytes });
  }
}
