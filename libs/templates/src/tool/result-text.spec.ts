import { compactPage, gaplessPage, resultText } from './result-text';
import type { ResultPage } from './result-text';

function page(rows: number, options: Partial<ResultPage> = {}): ResultPage {
  return {
    columns: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
      { name: 'note', type: 'string' },
    ],
    rows: Array.from({ length: rows }, (_, i) => ({
      id: i + 1,
      name: `product ${i + 1}`,
      note: i % 2 ? null : 'ok, "quoted"\nline',
    })),
    page: 1,
    page_size: 100,
    has_more: false,
    ...options,
  };
}

/** The rows a text holds, read back the way a model (or a test) would. */
function textRows(text: string): unknown[][] {
  const lines = text.split('\n');
  expect(lines[1]).toMatch(/^columns: /);
  return lines.slice(2).map((l) => JSON.parse(l) as unknown[]);
}

describe('resultText', () => {
  it('carries the whole page when it fits: columns once, one array per row, nulls kept', () => {
    const text = resultText(page(100), 64 * 1024);
    expect(text.split('\n')[0]).toBe(
      '100 row(s), result rows 1-100 (page 1, page_size 100); no more pages.',
    );
    expect(text.split('\n')[1]).toBe('columns: ["id","name","note"]');
    const rows = textRows(text);
    expect(rows).toHaveLength(100);
    expect(rows[0]).toEqual([1, 'product 1', 'ok, "quoted"\nline']);
    expect(rows[1]).toEqual([2, 'product 2', null]);
  });

  it('names the next page when there is one', () => {
    const text = resultText(page(20, { page: 3, page_size: 20, has_more: true }), 64 * 1024);
    expect(text.split('\n')[0]).toBe(
      '20 row(s), result rows 41-60 (page 3, page_size 20); more rows: call again with the same arguments and {"page":4,"page_size":20}.',
    );
  });

  it('cuts on a row boundary within the byte cap and names page arguments that leave no gap', () => {
    const full = page(100);
    const cap = 2048;
    const text = resultText(full, cap);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(cap);
    const rows = textRows(text);
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(100);
    expect(rows).toEqual(compactPage(full).rows.slice(0, rows.length));
    const next = JSON.parse(
      /call again with the same arguments and (\{.*\})\.$/.exec(text.split('\n')[0])![1],
    ) as { page: number; page_size: number };
    // the next call's first row is the first row the text left out
    expect((next.page - 1) * next.page_size).toBe(rows.length);
    expect(text.split('\n')[0]).toContain(`the text holds result rows 1-${rows.length}`);
  });

  it('says so when not even one row fits', () => {
    const wide = page(3);
    wide.rows[0].note = 'x'.repeat(5000);
    const text = resultText(wide, 2048);
    expect(text).toContain('none of its rows fit');
    expect(text).toContain('{"page":1,"page_size":1}');
  });
});

describe('gaplessPage', () => {
  it.each([
    [75, 75, { page: 2, page_size: 75 }],
    [175, 75, { page: 6, page_size: 35 }],
    [97, 50, { page: 98, page_size: 1 }],
    [0, 40, { page: 1, page_size: 40 }],
    [300, 150, { page: 4, page_size: 100 }],
  ])('offset %i, preferred %i', (offset, preferred, expected) => {
    const next = gaplessPage(offset, preferred);
    expect(next).toEqual(expected);
    expect((next.page - 1) * next.page_size).toBe(offset);
  });
});

describe('compactPage', () => {
  it('keeps the column order and fills missing values with null', () => {
    const compact = compactPage({
      columns: [
        { name: 'b', type: 'integer' },
        { name: 'a', type: 'string' },
      ],
      rows: [{ a: 'x', b: 1 }, { a: 'y' }],
      page: 1,
      page_size: 20,
      has_more: false,
    });
    expect(compact.rows).toEqual([
      [1, 'x'],
      [null, 'y'],
    ]);
    expect(compact.encoding).toBe('compact');
  });
});
