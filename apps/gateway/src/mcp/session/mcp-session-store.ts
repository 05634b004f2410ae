import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { RedisEventStore } from './mcp-event-store';

export { EVENTS_KEPT, MemoryEventStore, RedisEventStore } from './mcp-event-store';

/**
 * What any replica needs to continue an MCP session it did not open. The principal is not
 * stored: every request carries its own token, and the owner check compares against it.
 */
export interface SharedSessionState {
  owner: string;
  context: string | undefined;
  protocolVersion: string;
  /** fingerprint of the tool list the client last saw ('' when it has not listed yet) */
  fingerprint: string;
}

export type Liveness = 'alive' | 'closed' | 'lost';

/**
 * MCP session state in Redis, shared by every replica:
 * - `mcp:s:<id>` hash {owner, context, pv, fp}, expiring after the idle limit;
 * - `mcp:u:<hash of owner>` sorted set of the user's sessions scored by last use (the
 *   per-user cap and its least-recently-used eviction work across replicas);
 * - `mcp:e:<id>` the session's event stream (RedisEventStore).
 * Keys carry the deployment's REDIS_KEY_PREFIX (the client's keyPrefix).
 */
export class RedisSessionStore {
  constructor(
    readonly redis: Redis,
    private readonly ttlMs: number,
  ) {
    redis.defineCommand('mcpSetFingerprint', {
      numberOfKeys: 1,
      // 1: changed (the caller notifies), 0: already this value, -1: session gone
      lua: `if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'fp') == ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'fp', ARGV[1])
return 1`,
    });
    redis.defineCommand('mcpStreamAlive', {
      numberOfKeys: 2,
      // never recreates a session that was removed meanwhile
      lua: `if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'hb', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1`,
    });
  }

  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  sessionKey(id: string): string {
    return `mcp:s:${id}`;
  }

  eventsKey(id: string): string {
    return `mcp:e:${id}`;
  }

  userKey(owner: string): string {
    return `mcp:u:${createHash('sha256').update(owner).digest('base64url')}`;
  }

  eventStore(id: string): RedisEventStore {
    return new RedisEventStore(this.redis, this.eventsKey(id), this.ttlMs);
  }

  async save(id: string, state: SharedSessionState): Promise<void> {
    const now = Date.now();
    await this.redis
      .multi()
      .hset(this.sessionKey(id), {
        owner: state.owner,
        context: state.context ?? '',
        pv: state.protocolVersion,
        fp: state.fingerprint,
      })
      .pexpire(this.sessionKey(id), this.ttlMs)
      .zadd(this.userKey(state.owner), now, id)
      .pexpire(this.userKey(state.owner), this.ttlMs)
      .exec();
  }

  async load(id: string): Promise<SharedSessionState | undefined> {
    const h = await this.redis.hgetall(this.sessionKey(id));
    if (!h.owner || !h.pv) return undefined;
    return {
      owner: h.owner,
      context: h.context || undefined,
      protocolVersion: h.pv,
      fingerprint: h.fp ?? '',
    };
  }

  tombstoneKey(id: string): string {
    return `mcp:x:${id}`;
  }

  /**
   * A replica holds the session's notification stream open: the session is alive (not
   * expired by other replicas), though not "used" (its rank for eviction stays).
   */
  async streamAlive(id: string): Promise<Liveness> {
    const r = this.redis as Redis & {
      mcpStreamAlive(s: string, e: string, ttl: number, now: number): Promise<number>;
    };
    const alive = await r.mcpStreamAlive(
      this.sessionKey(id),
      this.eventsKey(id),
      this.ttlMs,
      Date.now(),
    );
    if (alive === 1) return 'alive';
    return (await this.redis.exists(this.tombstoneKey(id))) ? 'closed' : 'lost';
  }

  /**
   * Marks a use. 'closed': ended on purpose (DELETE, eviction, idle) by some replica;
   * 'lost': Redis no longer has it though nobody ended it (Redis restarted empty), and the
   * replica holding it should save it again.
   */
  async touch(id: string, owner: string): Promise<Liveness> {
    const results = await this.redis
      .multi()
      .pexpire(this.sessionKey(id), this.ttlMs)
      .pexpire(this.eventsKey(id), this.ttlMs)
      .zadd(this.userKey(owner), 'XX', Date.now(), id)
      .pexpire(this.userKey(owner), this.ttlMs)
      .exists(this.tombstoneKey(id))
      .exec();
    if (results?.[0]?.[1] === 1) return 'alive';
    return results?.[4]?.[1] === 1 ? 'closed' : 'lost';
  }

  /** 1 changed (notify), 0 unchanged, -1 the session is gone. */
  async setFingerprint(id: string, fingerprint: string): Promise<number> {
    const r = this.redis as Redis & {
      mcpSetFingerprint(key: string, fp: string): Promise<number>;
    };
    return r.mcpSetFingerprint(this.sessionKey(id), fingerprint);
  }

  /**
   * The user's live sessions, least recently used first (entries whose state expired are
   * dropped on the way).
   */
  async sessionsOf(owner: string): Promise<Array<{ id: string; lastUsed: number }>> {
    const key = this.userKey(owner);
    await this.redis.zremrangebyscore(key, '-inf', Date.now() - this.ttlMs);
    const flat = await this.redis.zrange(key, 0, -1, 'WITHSCORES');
    const all: Array<{ id: string; lastUsed: number }> = [];
    for (let i = 0; i < flat.length; i += 2)
      all.push({ id: flat[i], lastUsed: Number(flat[i + 1]) });
    if (all.length === 0) return all;
    const exists = await this.redis.multi(all.map((s) => ['exists', this.sessionKey(s.id)])).exec();
    const live = all.filter((_, i) => exists?.[i]?.[1] === 1);
    const dead = all.filter((_, i) => exists?.[i]?.[1] !== 1).map((s) => s.id);
    if (dead.length > 0) await this.redis.zrem(key, ...dead);
    return live;
  }

  /** The last request on the session or heartbeat of its stream, whichever is later. */
  async lastActive(id: string, owner: string): Promise<number | undefined> {
    const [score, hb] = await Promise.all([
      this.redis.zscore(this.userKey(owner), id),
      this.redis.hget(this.sessionKey(id), 'hb'),
    ]);
    if (score === null && hb === null) return undefined;
    return Math.max(Number(score ?? 0), Number(hb ?? 0));
  }

  async wasClosed(id: string): Promise<boolean> {
    return (await this.redis.exists(this.tombstoneKey(id))) === 1;
  }

  /** Ends a session for every replica; a tombstone tells them it was ended, not lost. */
  async remove(id: string, owner: string): Promise<void> {
    await this.redis
      .multi()
      .del(this.sessionKey(id), this.eventsKey(id))
      .zrem(this.userKey(owner), id)
      .set(this.tombstoneKey(id), '1', 'PX', this.ttlMs)
      .exec();
  }
}
