import type Redis from 'ioredis';
import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** An event id is `<stream id>|<position>`; the stream id is the SDK's ('_GET_stream', ...). */
function splitEventId(eventId: string): [string, string] | undefined {
  const bar = eventId.lastIndexOf('|');
  if (bar <= 0 || bar === eventId.length - 1) return undefined;
  return [eventId.slice(0, bar), eventId.slice(bar + 1)];
}

type Send = (eventId: string, message: JSONRPCMessage) => Promise<void>;

/**
 * What both event stores share: an event id is `<stream id>|<position>`, and a replay sends
 * the events of that stream after that position (`replay`, by store).
 */
abstract class PositionedEventStore implements EventStore {
  abstract storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;

  protected abstract replay(stream: string, position: string, send: Send): Promise<void>;

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return splitEventId(eventId)?.[0];
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: Send }): Promise<string> {
    const parts = splitEventId(lastEventId);
    if (!parts) return '';
    const [stream, position] = parts;
    await this.replay(stream, position, send);
    return stream;
  }
}

/** How many events a session keeps for replay (a reconnecting client needs the last few). */
export const EVENTS_KEPT = 100;

/**
 * Events of one session for `Last-Event-ID` resumption, kept in this process: used when
 * there is no Redis (a client that reconnects to the same replica misses nothing).
 */
export class MemoryEventStore extends PositionedEventStore {
  private readonly events: Array<{ seq: number; stream: string; message: JSONRPCMessage }> = [];
  private seq = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.seq += 1;
    this.events.push({ seq: this.seq, stream: streamId, message });
    if (this.events.length > EVENTS_KEPT) this.events.shift();
    return `${streamId}|${this.seq}`;
  }

  protected async replay(stream: string, position: string, send: Send): Promise<void> {
    const after = Number(position);
    for (const e of this.events) {
      if (e.stream === stream && e.seq > after) await send(`${stream}|${e.seq}`, e.message);
    }
  }
}

/**
 * Events of one session in a Redis stream (`mcp:e:<session>`, capped at EVENTS_KEPT, expiring
 * with the session), so a client whose replica died resumes on another one. When Redis is
 * down an event is still delivered live with an id that simply replays nothing.
 */
export class RedisEventStore extends PositionedEventStore {
  private local = 0;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly ttlMs: number,
  ) {
    super();
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    try {
      if (this.redis.status !== 'ready') throw new Error('redis not ready');
      const [[, id]] = (await this.redis
        .multi()
        .xadd(
          this.key,
          'MAXLEN',
          '~',
          String(EVENTS_KEPT),
          '*',
          's',
          streamId,
          'm',
          JSON.stringify(message),
        )
        .pexpire(this.key, this.ttlMs)
        .exec()) as [[Error | null, string]];
      return `${streamId}|${id}`;
    } catch {
      this.local += 1;
      return `${streamId}|local-${this.local}`;
    }
  }

  protected async replay(stream: string, position: string, send: Send): Promise<void> {
    if (!/^\d+-\d+$/.test(position) || this.redis.status !== 'ready') return;
    const entries = await this.redis.xrange(this.key, `(${position}`, '+').catch(() => []);
    for (const [id, fields] of entries) {
      const s = fields[fields.indexOf('s') + 1];
      const m = fields[fields.indexOf('m') + 1];
      if (s !== stream || m === undefined) continue;
      await send(`${stream}|${id}`, JSON.parse(m) as JSONRPCMessage);
    }
  }
}
