import { toolFailure, toolPage, toolText } from '@app/registry';
import type { ToolCallOutcome } from '@app/registry';
import type { RequestContext } from '../pipeline/request-context';
import { runInRequest } from '../pipeline/request-context';
import { restBody, restResult } from './tool-call.hot-path';

const page = () => ({
  columns: [
    { name: 'order_id', type: 'integer' },
    { name: 'note', type: 'text' },
  ],
  rows: [
    { order_id: 1, note: 'a "quoted" \u2028 line' },
    { order_id: 2, note: null },
  ],
  page: 1,
  page_size: 20,
  has_more: false,
});

const outcomes: Array<[string, () => ToolCallOutcome]> = [
  [
    'a page with its rows JSON kept',
    () => {
      const p = page();
      return toolPage('query_report_x', p, JSON.stringify(p.rows));
    },
  ],
  ['a page without kept JSON', () => toolPage('query_report_x', page())],
  ['an empty page', () => toolPage('query_report_x', { ...page(), rows: [] }, '[]')],
  ['an error', () => toolFailure('query_report_x', 'TIMEOUT', 'took too long')],
  ['a text result', () => toolText('search_tools', 'found', { tools: [] })],
];

describe('restBody', () => {
  it.each(outcomes)(
    'is JSON.stringify(restResult(outcome)) for %s, outside a request',
    (_, make) => {
      expect(restBody(make())).toBe(JSON.stringify(restResult(make())));
    },
  );

  it.each(outcomes)('is JSON.stringify(restResult(outcome)) for %s, with a trace id', (_, make) => {
    const ctx = { traceId: '0af7651916cd43dd8448eb211c80319c' } as RequestContext;
    const [fast, plain] = runInRequest(ctx, () => [
      restBody(make()),
      JSON.stringify(restResult(make())),
    ]);
    expect(fast).toBe(plain);
    expect(JSON.parse(fast)).toMatchObject({ trace_id: ctx.traceId });
  });
});
