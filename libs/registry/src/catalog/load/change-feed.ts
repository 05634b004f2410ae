import type { DatabaseHandle, Unlisten } from '@app/db';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CatalogFreshness } from '../catalog-freshness';
import { Metrics } from '../../metrics';
import { DATABASE, DEFAULT_REGISTRY_OPTIONS, REGISTRY_OPTIONS } from '../../tokens';
import type { RegistryOptions } from '../../tokens';

export const CATALOG_CHANNEL = 'gateway_catalog';

export type CatalogChangeListener = (tenantId: string | '*') => void;

/** The part of the database handle the feed uses. */
export type ListenSource = Pick<DatabaseHandle, 'listen'>;

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

/**
 * Catalog change notices: a LISTEN connection on CATALOG_CHANNEL (every instance, every
 * write path NOTIFYs it), reconnected with exponential backoff. While it is up, memory is
 * trusted; after it was down, every tenant may have changed ('*').
 */
@Injectable()
export class CatalogChangeFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CatalogStore');
  private readonly listeners = new Set<CatalogChangeListener>();
  readonly freshness: CatalogFreshness;
  private unlisten?: Unlisten;
  private reconnectTimer?: NodeJS.Timeout;
  private reconnectDelayMs = FIRST_RETRY_MS;
  private stopped = false;

  constructor(
    @Inject(DATABASE) private readonly database: ListenSource,
    private readonly metrics: Metrics,
    @Optional() @Inject(REGISTRY_OPTIONS) options: RegistryOptions | null = null,
  ) {
    this.freshness = new CatalogFreshness((options ?? DEFAULT_REGISTRY_OPTIONS).staleAfterMs);
    metrics.describe('gateway_catalog_listener_up', '1 while the LISTEN connection is up');
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    await this.unlisten?.();
  }

  get isListening(): boolean {
    return this.freshness.listening;
  }

  /** Called for every tenant whose catalog changed ('*' = any tenant may have), in order of subscription. */
  onChange(listener: CatalogChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Announces a change to every listener (as a NOTIFY would). */
  publish(tenantId: string | '*'): void {
    // Listeners run inside the LISTEN connection's event handler: one that throws must not
    // take the others, the connection or the process with it.
    for (const listener of this.listeners) {
      try {
        listener(tenantId);
      } catch (err) {
        this.logger.warn(
          `a catalog change listener failed for ${tenantId}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
  }

  async start(): Promise<void> {
    if (this.stopped) return;
    try {
      this.unlisten = await this.database.listen(
        CATALOG_CHANNEL,
        (tenant) => this.publish(tenant),
        (err) => this.lost(err),
      );
      const wasDown = !this.freshness.listening;
      this.freshness.listening = true;
      this.reconnectDelayMs = FIRST_RETRY_MS;
      this.metrics.set('gateway_catalog_listener_up', 1);
      // Anything may have changed while nobody was listening.
      if (wasDown) this.publish('*');
    } catch (err) {
      this.lost(err);
    }
  }

  private lost(err: unknown): void {
    if (this.stopped || this.reconnectTimer) return;
    if (this.freshness.listening)
      this.logger.warn(
        `LISTEN connection lost (${err instanceof Error ? err.message : String(err)}); reconnecting`,
      );
    this.freshness.listening = false;
    this.metrics.set('gateway_catalog_listener_up', 0);
    void this.unlisten?.();
    this.unlisten = undefined;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, MAX_RETRY_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.start();
    }, delay);
    this.reconnectTimer.unref();
  }
}
