import { REDACTED, redactValues, RunValues } from './error-redaction';

const seen = (given: unknown[], read: unknown[]) => {
  const values = new RunValues();
  for (const g of given) values.gave(g);
  for (const r of read) values.read(JSON.stringify(r));
  return values;
};

describe('a generated tool error as reviewers read it (#28 item 5)', () => {
  const rows = {
    columns: [{ name: 'email', type: 'string' }],
    rows: [
      { email: 'ann@acme.example', salary: 123456.5, note: 'said "hi"\nthen left', id: 7 },
      { email: 'bob@acme.example', salary: 98000, note: null, id: 12 },
    ],
  };

  it('replaces every value the run read, as is and inside JSON, and keeps the tool’s own words', () => {
    const message = `unexpected rows ${JSON.stringify(rows.rows)}; first is ann@acme.example earning 123456.5`;
    const redacted = redactValues(message, seen([], [rows]));
    for (const leaked of ['ann@acme', 'bob@acme', '123456', '98000', 'said', 'then left'])
      expect(redacted).not.toContain(leaked);
    expect(redacted).toContain(`; first is ${REDACTED} earning ${REDACTED}`);
    // keys and a report page's column names are not the caller's values: the shape stays
    expect(redacted).toContain(
      `[{"email":"${REDACTED}","salary":${REDACTED},"note":"${REDACTED}","id":${REDACTED}}`,
    );
  });

  it('replaces the caller’s arguments, identity and claims; short values only where they stand alone', () => {
    const values = seen([{ region: 'EMEA', n: 7 }, ['u-42', { cost_center: 'cc9' }]], []);
    expect(
      redactValues('bad region EMEA for u-42 (cc9): 7 rows; see v1.7 and 17 and cc99', values),
    ).toBe(
      `bad region ${REDACTED} for ${REDACTED} (${REDACTED}): ${REDACTED} rows; see v1.7 and 17 and cc99`,
    );
  });

  it('never replaces inside a replacement, and withholds a message it cannot check', () => {
    expect(redactValues('x value y', seen(['value', '‹value›'], []))).toBe(`x ${REDACTED} y`);
    const many = Array.from({ length: 30_000 }, (_, i) => `v${i}`);
    expect(redactValues('v1 failed', seen([many], []))).toMatch(/^\(message withheld/);
  });
});
