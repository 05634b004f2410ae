import { REDACTED, RunValues } from './error-redaction';
import { MAX_LOG_CHARS, RunLog } from './run-log';

describe('RunLog: a generated tool console output on its way to the gateway log', () => {
  const setup = () => {
    const values = new RunValues();
    const written: string[] = [];
    return { values, written, log: new RunLog(values, (l) => written.push(l)) };
  };

  it('replaces the rows the run read and the arguments it was given, as last_error does', () => {
    const { values, written, log } = setup();
    values.gave({ customer: 'ACME-7781' });
    values.read(
      JSON.stringify({
        columns: [{ name: 'email', type: 'string' }],
        rows: [{ email: 'dana@example.com', total: 98765.43 }],
        page: 1,
      }),
    );
    log.line('log', `rows: ${JSON.stringify([{ email: 'dana@example.com', total: 98765.43 }])}`);
    log.line('warn', 'looked up ACME-7781');
    expect(written).toEqual([
      `console.log: rows: [{"email":"${REDACTED}","total":${REDACTED}}]`,
      `console.warn: looked up ${REDACTED}`,
    ]);
    expect(written.join('\n')).not.toMatch(/dana@example\.com|98765|ACME-7781/);
  });

  it('bounds each line and the number of lines, saying once that the rest was dropped', () => {
    const { written, log } = setup();
    log.line('log', 'x'.repeat(100_000));
    expect(written[0].length).toBeLessThanOrEqual(`console.log: `.length + MAX_LOG_CHARS);
    for (let i = 0; i < 200; i++) log.line('info', `line ${i}`);
    expect(written).toHaveLength(51);
    expect(written[50]).toBe('console output past 50 lines dropped');
  });

  it('a level the sandbox should not send is written as log', () => {
    const { written, log } = setup();
    log.line('\u001b[31mfatal', 'hi');
    expect(written).toEqual(['console.log: hi']);
  });
});
