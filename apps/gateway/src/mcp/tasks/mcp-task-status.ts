import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';

/**
 * Which tasks changed status, heard from every replica: published on a Redis channel (and
 * heard by each replica's subscriber), or told in this process without Redis.
 */
export class TaskStatusChannel {
  /** task ids whose status changed, heard from every replica (Redis) or this one */
  private readonly changed = new EventEmitter();
  private readonly subscriber?: Redis;
  private readonly channel: string;

  constructor(private readonly redis: Redis | null) {
    this.changed.setMaxListeners(0);
    // pub/sub channels are not keys: the deployment's prefix is added by hand
    this.channel = `${redis?.options.keyPrefix ?? ''}mcp:task-status`;
    if (redis) {
      // the shared client has no offline queue (a cache miss beats a wait); a subscription
      // must wait for the connection instead, and is renewed on every reconnect
      this.subscriber = redis.duplicate({ enableOfflineQueue: true });
      this.subscriber.on('error', () => undefined);
      this.subscriber.on('message', (_channel: string, taskId: string) =>
        this.changed.emit('status', taskId),
      );
      void this.subscriber.subscribe(this.channel).catch(() => undefined);
    }
  }

  /** Calls `listener` with the id of each task whose status changed, on any replica. */
  onStatus(listener: (taskId: string) => void): () => void {
    this.changed.on('status', listener);
    return () => this.changed.off('status', listener);
  }

  announce(taskId: string): void {
    if (this.redis) void this.redis.publish(this.channel, taskId).catch(() => undefined);
    else this.changed.emit('status', taskId);
  }

  close(): void {
    this.subscriber?.disconnect();
  }
}
