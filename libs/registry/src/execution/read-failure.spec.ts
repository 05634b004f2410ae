import { ResultTooLargeError } from '@app/db';
import { readFailure, tooLarge } from './read-failure';
import type { ToolFailure } from './tool-outcome';

function failure(err: unknown, timeoutMs = 5000) {
  const logged: string[] = [];
  const outcome = readFailure('sales_by_region', err, timeoutMs, (line) => logged.push(line));
  return { error: (outcome as ToolFailure).error, logged, outcome };
}

describe('readFailure', () => {
  it('turns a result stopped at the byte cap into RESULT_TOO_LARGE, "more than"', () => {
    const { error, logged } = failure(new ResultTooLargeError(300_000, 262_144));
    expect(error.code).toBe('RESULT_TOO_LARGE');
    expect(error.message).toContain('more than 300000 bytes, over the 262144-byte limit');
    expect(logged).toEqual([]);
  });

  it('turns a cancelled statement or a client read timeout into TIMEOUT with the seconds', () => {
    const cancelled = failure({ code: '57014', message: 'canceling statement' }, 2500);
    expect(cancelled.error.code).toBe('TIMEOUT');
    expect(cancelled.error.message).toContain('longer than 2.5 s');
    expect(failure(new Error('Query read timeout')).error.code).toBe('TIMEOUT');
  });

  it('tells the caller which value the database refused (class 22)', () => {
    const { error } = failure({ code: '22007', message: 'invalid input syntax for type date' });
    expect(error).toEqual({
      code: 'QUERY_FAILED',
      message:
        'the database refused a value: invalid input syntax for type date; check the arguments',
    });
  });

  it('answers DATA_UNAVAILABLE when the database is away', () => {
    expect(failure({ code: '08006', message: 'connection failure' }).error.code).toBe(
      'DATA_UNAVAILABLE',
    );
    expect(failure({ code: '57P01', message: 'admin shutdown' }).error.code).toBe(
      'DATA_UNAVAILABLE',
    );
    expect(failure(new Error('connect ECONNREFUSED 127.0.0.1:5432')).error.code).toBe(
      'DATA_UNAVAILABLE',
    );
  });

  it('hides anything else behind a reference that the log line carries with the cause', () => {
    const { error, logged } = failure({
      code: '42P01',
      message: 'relation "secret" does not exist',
    });
    expect(error.code).toBe('QUERY_FAILED');
    expect(error.message).not.toContain('secret');
    const reference = /reference ([0-9a-f-]{36})/.exec(error.message)?.[1];
    expect(reference).toBeDefined();
    expect(logged).toEqual([
      `report sales_by_region failed (reference ${reference}): relation "secret" does not exist`,
    ]);
  });

  it('copes with a thrown value that is not an error object', () => {
    const { error, logged } = failure('boom');
    expect(error.code).toBe('QUERY_FAILED');
    expect(logged[0]).toMatch(/: boom$/);
  });
});

describe('tooLarge', () => {
  it('gives the measured size of a page over the cap', () => {
    const outcome = tooLarge('t', 5000, false, 4096) as ToolFailure;
    expect(outcome.tool).toBe('t');
    expect(outcome.error.message).toMatch(/^this page is 5000 bytes, over the 4096-byte limit/);
  });
});
