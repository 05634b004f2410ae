import type { Cleanup } from './cleanup';
import { createDatabase } from './database';
import { GatewayProcess } from './gateway';
import { redisPrefix } from './redis';

/**
 * The demo database (a clone of the seeded template) and one gateway on it, shared by the
 * scenarios that only read the demo catalog (list, call; cache uses the database with its
 * own gateways and Redis prefix), so a run starts and warms fewer processes.
 */
export class DemoFixture {
  private databaseP?: Promise<string>;
  private gatewayP?: Promise<GatewayProcess>;
  private prefix?: string;

  constructor(
    private readonly cleanup: Cleanup,
    private readonly runId: string,
    private readonly template: string,
  ) {}

  database(): Promise<string> {
    this.databaseP ??= (async () => {
      const name = `gw_bench_${this.runId}_demo`;
      await createDatabase(this.cleanup, name, this.template);
      return name;
    })();
    return this.databaseP;
  }

  /** REDIS_KEY_PREFIX of the shared gateway. */
  redisPrefix(): string {
    this.prefix ??= redisPrefix(this.cleanup, this.runId, 'demo');
    return this.prefix;
  }

  gateway(): Promise<GatewayProcess> {
    this.gatewayP ??= (async () =>
      GatewayProcess.start(this.cleanup, {
        name: 'demo',
        database: await this.database(),
        redisPrefix: this.redisPrefix(),
      }))();
    return this.gatewayP;
  }
}
