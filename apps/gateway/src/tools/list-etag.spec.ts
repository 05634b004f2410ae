import { listEtag, notModified } from './list-etag';

describe('list ETags', () => {
  const etag = listEtag('acme:12:p3f9:*', 'openai');

  it('is the toolset key and format, quoted', () => {
    expect(etag).toBe('"acme:12:p3f9:*;openai"');
  });

  it.each([
    [etag, true],
    [`"x", ${etag}`, true],
    [`W/${etag}`, true],
    ['*', true],
    [listEtag('acme:13:p3f9:*', 'openai'), false],
    [listEtag('acme:12:p3f9:*', 'anthropic'), false],
    ['', false],
    [undefined, false],
  ])('If-None-Match %s -> not modified: %s', (header, expected) => {
    expect(notModified(header, etag)).toBe(expected);
  });
});
