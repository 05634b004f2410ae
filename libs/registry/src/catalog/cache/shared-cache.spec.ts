import { Logger } from '@nestjs/common';
import { Metrics } from '../../metrics';
import { FakeRedis } from '../fake-redis.spec-helper';
import { SharedCache } from './shared-cache';

function setup(withRedis = true) {
  const metrics = new Metrics();
  const redis = new FakeRedis();
  const cache = new SharedCache(metrics, withRedis ? redis.asRedis() : null);
  const count = (name: string) => metrics.value(`gateway_l2_${name}_total`);
  return { metrics, redis, cache, count };
}

/** An `open` that accepts values starting with "ok:" and returns their rest. */
const openOk = (raw: string) => (raw.startsWith('ok:') ? raw.slice(3) : undefined);

describe('SharedCache', () => {
  it('is off without Redis: every read misses, writes and deletes do nothing', async () => {
    const { cache, count } = setup(false);
    expect(cache.enabled).toBe(false);
    await cache.set('k', 'v', 60);
    await expect(cache.get('k')).resolves.toBeUndefined();
    await expect(cache.read('k', openOk)).resolves.toBeUndefined();
    await cache.delete('k');
    expect(count('misses')).toBe(2);
    expect(count('errors')).toBe(0);
  });

  it('stores a value with its TTL and reads it back, counting hits and misses', async () => {
    const { cache, redis, count } = setup();
    expect(cache.enabled).toBe(true);
    await cache.set('k', 'ok:body', 90);
    expect(redis.expiries.get('k')).toBe(90);
    await expect(cache.get('k')).resolves.toBe('ok:body');
    await expect(cache.read('k', openOk)).resolves.toBe('body');
    await expect(cache.get('other')).resolves.toBeUndefined();
    expect(count('hits')).toBe(2);
    expect(count('misses')).toBe(1);
  });

  it('drops a value `open` refuses: not served, deleted from Redis, counted', async () => {
    const { cache, redis, count } = setup();
    redis.values.set('k', 'corrupt');
    await expect(cache.read('k', openOk)).resolves.toBeUndefined();
    expect(redis.values.has('k')).toBe(false);
    expect(count('rejected')).toBe(1);
  });

  it('logs a refused key once however often it is refused, and an outage once until Redis is back', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { cache, redis } = setup();
      for (let i = 0; i < 3; i++) {
        redis.values.set('k', 'corrupt');
        await cache.read('k', openOk);
      }
      expect(warned.mock.calls.filter(([m]) => String(m).includes(' at k '))).toHaveLength(1);
      warned.mockClear();
      redis.emit('error', new Error('ECONNREFUSED'));
      redis.emit('error', new Error('ECONNREFUSED'));
      expect(warned).toHaveBeenCalledTimes(1);
      redis.emit('ready');
      redis.emit('error', new Error('ECONNREFUSED'));
      expect(warned).toHaveBeenCalledTimes(2);
    } finally {
      warned.mockRestore();
    }
  });

  it('treats an `open` that throws like a refusal', async () => {
    const { cache, redis, count } = setup();
    redis.values.set('k', 'ok:x');
    const throwing = () => {
      throw new Error('parser bug');
    };
    await expect(cache.read('k', throwing)).resolves.toBeUndefined();
    expect(redis.values.has('k')).toBe(false);
    expect(count('rejected')).toBe(1);
  });

  it('answers a miss, never an error, while Redis fails, and counts each failure', async () => {
    const { cache, redis, count } = setup();
    redis.values.set('k', 'ok:v');
    redis.failing = true;
    await expect(cache.get('k')).resolves.toBeUndefined();
    await expect(cache.read('k', openOk)).resolves.toBeUndefined();
    await expect(cache.set('k', 'ok:w', 60)).resolves.toBeUndefined();
    await expect(cache.delete('k')).resolves.toBeUndefined();
    expect(count('errors')).toBe(4);
    expect(redis.values.get('k')).toBe('ok:v');
  });

  it('sends no command while the connection is not ready, and resumes when it is', async () => {
    const { cache, redis, count } = setup();
    redis.values.set('k', 'ok:v');
    redis.status = 'reconnecting';
    await expect(cache.get('k')).resolves.toBeUndefined();
    await cache.set('k2', 'ok:w', 60);
    await cache.delete('k');
    expect(redis.commands).toEqual([]);
    expect(count('errors')).toBe(2);
    redis.status = 'ready';
    redis.emit('ready');
    await expect(cache.read('k', openOk)).resolves.toBe('v');
  });

  it('counts connection errors ioredis reports', () => {
    const { redis, count } = setup();
    redis.emit('error', new Error('ECONNREFUSED'));
    redis.emit('error', new Error('ECONNREFUSED'));
    expect(count('errors')).toBe(2);
  });

  it('disconnects Redis when the module is destroyed', async () => {
    const { cache, redis } = setup();
    await cache.onModuleDestroy();
    expect(redis.status).toBe('end');
  });
});
