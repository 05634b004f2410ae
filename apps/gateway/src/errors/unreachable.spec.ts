import { isBackendUnreachable } from './unreachable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isBackendUnreachable', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['SQLSTATE 08006', withCode('connection failure', '08006')],
    ['an administrator ending the backend', withCode('terminating connection', '57P01')],
    ['the server starting up', withCode('the database system is starting up', '57P03')],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    [
      'a wrapped cause',
      new Error('admin write failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
    ],
  ])('is true for %s', (_what, err) => {
    expect(isBackendUnreachable(err)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a unique violation', withCode('duplicate key value', '23505')],
    ['a syntax error', withCode('syntax error at or near "x"', '42601')],
    [
      'a statement timeout (the query, not the connection)',
      withCode('canceling statement', '57014'),
    ],
    ['a thrown string', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('is false for %s', (_what, err) => {
    expect(isBackendUnreachable(err)).toBe(false);
  });
});
