import type { GuardedReadResult } from '@app/db';
import { columnsOf, rowObjects } from './result-rows';

const result: GuardedReadResult = {
  fields: [
    { name: 'region', dataTypeID: 25 },
    { name: 'orders', dataTypeID: 20 },
    { name: 'amount', dataTypeID: 1700 },
    { name: 'odd', dataTypeID: 999_999 },
  ],
  rows: [
    ['east', 3, 12.5, null],
    ['west', 1, 4, 'x'],
    ['north', 0, 0, 'y'],
  ],
  bytes: 0,
};

describe('result rows', () => {
  it('names each column with its API type, unknown types as string', () => {
    expect(columnsOf(result)).toEqual([
      { name: 'region', type: 'string' },
      { name: 'orders', type: 'integer' },
      { name: 'amount', type: 'number' },
      { name: 'odd', type: 'string' },
    ]);
  });

  it('turns the first rows into objects keyed by column, in order', () => {
    expect(rowObjects(result, 2)).toEqual([
      { region: 'east', orders: 3, amount: 12.5, odd: null },
      { region: 'west', orders: 1, amount: 4, odd: 'x' },
    ]);
    expect(rowObjects(result, 0)).toEqual([]);
  });
});
