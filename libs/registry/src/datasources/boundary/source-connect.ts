import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import pg from 'pg';
import type { AllowedNetworks } from './allowed-networks';
import type { SourceEndpoint } from './source-address';

type ConnectCallback = ((err: Error) => void) | ((err: null, c: pg.Client) => void);

/** A source may not be connected to: the address is not allowed, or it is the gateway's server. */
export class SourceRefusedError extends Error {
  constructor(
    readonly rule: 'network' | 'own_server',
    message: string,
  ) {
    super(message);
  }
}

/** The gateway's own database server as any database on it shows it (issue #37). */
export interface ServerFingerprint {
  /** pg_postmaster_start_time(): the same in every database of one running server */
  started: string;
  /** the gateway's database: its oid and name, visible in pg_database from every database there */
  databaseOid: string;
  databaseName: string;
}

/**
 * The role the gateway's migrations create on its own server (cluster-wide, like every role):
 * a source whose server has it is a gateway's database server and is refused.
 */
export const SERVER_MARKER_ROLE = 'gateway_server_marker';

/** How long the gateway's own server fingerprint is trusted before it is read again. */
const OWN_SERVER_TTL_MS = 60_000;

export interface ConnectorOptions {
  networks: AllowedNetworks;
  connectTimeoutMs: number;
  /** the gateway's own server, read fresh enough; null where it has none (embedded PGlite) */
  ownServer: () => Promise<ServerFingerprint | null>;
}

/**
 * How every connection to a tenant's source is made (issue #37): the name resolved, each address
 * checked against the allowed networks, the connection made to that checked address (no second
 * lookup between check and connect, so no DNS rebinding), and the server it reached asked
 * whether it is the gateway's own before anything else is sent. Registration checks and the
 * pools both connect through here.
 */
export class SourceConnector {
  private own: { at: number; fingerprint: Promise<ServerFingerprint | null> } | undefined;

  constructor(private readonly options: ConnectorOptions) {}

  /** The gateway's own server, read at most once a minute (null: embedded, or unreadable). */
  private ownServer(): Promise<ServerFingerprint | null> {
    if (!this.own || Date.now() - this.own.at > OWN_SERVER_TTL_MS)
      this.own = { at: Date.now(), fingerprint: this.options.ownServer().catch(() => null) };
    return this.own.fingerprint;
  }

  get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs;
  }

  /** The checked address to connect to for `endpoint` (throws SourceRefusedError or a lookup error). */
  async address(endpoint: SourceEndpoint): Promise<string> {
    const addresses = net.isIP(endpoint.host)
      ? [endpoint.host]
      : await lookup(endpoint.host, this.options.connectTimeoutMs);
    const refused = addresses.find((a) => !this.options.networks.allows(a));
    if (refused !== undefined || addresses.length === 0)
      throw new SourceRefusedError(
        'network',
        `${endpoint.host} is ${net.isIP(endpoint.host) ? '' : 'at '}an address this gateway does not connect to (DATASOURCE_ALLOWED_NETWORKS: ${this.options.networks.spec.join(', ')})`,
      );
    return addresses[0];
  }

  /** The driver's config for `endpoint`: built from its parts, never from a URL. */
  clientConfig(endpoint: SourceEndpoint, caPem: string | undefined, applicationName: string) {
    return {
      host: endpoint.host,
      port: endpoint.port,
      database: endpoint.database,
      user: endpoint.user,
      // a string, even empty: node-postgres reads ~/.pgpass for a login without one
      password: endpoint.password,
      ssl: sslOptions(endpoint, caPem),
      application_name: applicationName,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      Client: this.clientClass(endpoint),
    };
  }

  /** A node-postgres Client class whose connect goes through the checks above. */
  clientClass(endpoint: SourceEndpoint): typeof pg.Client {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const connector = this;
    class CheckedClient extends pg.Client {
      override connect(): Promise<pg.Client>;
      override connect(callback: ConnectCallback): void;
      override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
        const run = async (): Promise<pg.Client> => {
          const address = await connector.address(endpoint);
          this.host = address;
          (
            this as unknown as { connectionParameters: { host: string } }
          ).connectionParameters.host = address;
          await super.connect();
          try {
            await connector.refuseOwnServer(this);
          } catch (err) {
            await this.end().catch(() => undefined);
            throw err;
          }
          return this;
        };
        if (!callback) return run();
        run().then(
          (client) => (callback as (err: null, c: pg.Client) => void)(null, client),
          (err: Error) => (callback as (err: Error) => void)(err),
        );
      }
    }
    return CheckedClient;
  }

  /** Refuses the server `client` is connected to when it is a gateway's own database server. */
  async refuseOwnServer(client: pg.Client): Promise<void> {
    const own = await this.ownServer();
    const { rows } = await client.query<{ marked: boolean; same: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1) AS marked,
              coalesce(pg_catalog.pg_postmaster_start_time()::text = $2
                AND EXISTS (SELECT 1 FROM pg_catalog.pg_database WHERE oid::text = $3 AND datname = $4), false) AS same`,
      [SERVER_MARKER_ROLE, own?.started ?? '', own?.databaseOid ?? '', own?.databaseName ?? ''],
    );
    if (rows[0]?.marked || rows[0]?.same)
      throw new SourceRefusedError(
        'own_server',
        "it is the gateway's own database server: a tenant's data source must be the tenant's own server",
      );
  }
}

function sslOptions(endpoint: SourceEndpoint, caPem: string | undefined): pg.ClientConfig['ssl'] {
  const servername = net.isIP(endpoint.host) ? undefined : endpoint.host;
  switch (endpoint.sslmode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false, servername };
    case 'verify-ca':
      // the chain is checked against the CA; the name is not (libpq's verify-ca)
      return {
        rejectUnauthorized: true,
        ca: caPem,
        servername,
        checkServerIdentity: () => undefined,
      };
    case 'verify-full':
      // the name the admin gave, not the address connected to, is what the certificate must name
      return {
        rejectUnauthorized: true,
        ca: caPem,
        servername,
        checkServerIdentity: (_address, cert) => tls.checkServerIdentity(endpoint.host, cert),
      };
  }
}

async function lookup(host: string, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('lookup timed out'), { code: 'EAI_AGAIN' })),
      timeoutMs,
    );
  });
  try {
    const found = await Promise.race([
      dns.promises.lookup(host, { all: true, verbatim: true }),
      timeout,
    ]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}
