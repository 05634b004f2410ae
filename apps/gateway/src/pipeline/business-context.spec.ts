import { requestedContext } from './business-context';

describe('requestedContext (the one business-context parser)', () => {
  it('takes ?context= first', () => {
    const request = { headers: { 'x-business-context': 'FINANCE' }, query: { context: 'SALES' } };
    expect(requestedContext(request)).toBe('SALES');
  });

  it('falls back to the X-Business-Context header', () => {
    expect(requestedContext({ headers: { 'x-business-context': 'FINANCE' }, query: {} })).toBe(
      'FINANCE',
    );
  });

  it('reads an empty query value or header as no context', () => {
    expect(requestedContext({ headers: {}, query: { context: '' } })).toBeUndefined();
    expect(requestedContext({ headers: { 'x-business-context': '' }, query: {} })).toBeUndefined();
    expect(
      requestedContext({ headers: { 'x-business-context': 'FINANCE' }, query: { context: '' } }),
    ).toBe('FINANCE');
  });

  it('names a repeated ?context= as given, so it is refused as unknown, not narrowed', () => {
    expect(requestedContext({ headers: {}, query: { context: ['SALES', 'FINANCE'] } })).toBe(
      'SALES,FINANCE',
    );
  });

  it('ignores a repeated header (an array) and a missing query object', () => {
    const headers = { 'x-business-context': ['A', 'B'] as unknown as string };
    expect(requestedContext({ headers, query: undefined })).toBeUndefined();
  });
});
