import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { analystAuthor, callTool, install, toolSource } from '../support/meta-tool';

/**
 * Fault (issue #39 item 7): a generated tool writes the rows it read with `console.log`, and
 * floods the log. The gateway log gets each line redacted as `last_error` is (no value of the
 * caller's rows or arguments), each line bounded, and at most 50 lines per run (the sandbox
 * counts them, and the gateway does not trust it to: RunLog, libs/meta-tool).
 */
describe('faults: a generated tool that logs its caller’s rows', () => {
  let gw: RunningGateway;
  const raw: string[] = [];
  const analyst: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

  beforeAll(async () => {
    gw = await startGateway(
      { LOG_LEVEL: 'info', META_TOOL_APPROVAL_WAIT_MS: '', META_TOOL_ENABLED: '' },
      undefined,
      { logDestination: { write: (line: string) => void raw.push(line) } },
    );
    await install(
      gw,
      {
        name: 'chatty',
        code: toolSource(
          'chatty',
          "if (!args.n) return 'idle'; const page = await ctx.report('orders_by_status', {}); console.log('rows ' + JSON.stringify(page.rows)); console.warn('asked for', args.n); for (let i = 0; i < 200; i++) console.info('filler ' + i + ' ' + 'y'.repeat(5000)); return page.rows.length;",
        ),
        testArgs: {},
      },
      analystAuthor,
    );
  });
  afterAll(() => gw?.close());

  it('writes the lines redacted and bounded, never a row value', async () => {
    const page = await callTool(gw, analyst, 'query_report_orders_by_status', {});
    const rows = (page.body.result as { rows: Array<Record<string, unknown>> }).rows;
    const values = rows.flatMap((r) => [String(r.status), String(r.order_count)]);
    expect(values.length).toBeGreaterThan(4);
    const called = await callTool(gw, analystAuthor, 'chatty', { n: 918273 });
    expect(called.body.is_error).toBe(false);
    const toolLines = () =>
      raw
        .map((l) => JSON.parse(l) as { msg?: string })
        .map((l) => l.msg ?? '')
        .filter(
          (m) => m.includes('[acme/chatty] console.') || m.includes('[acme/chatty] console output'),
        );
    // the sandbox stops at 50 lines (the gateway would drop any past them too)
    await eventually(async () => expect(toolLines().at(-1)).toMatch(/filler 47 y+…$/));
    const lines = toolLines();
    // the approval's smoke call ran with n unset and logged nothing: these are the call's
    expect(lines).toHaveLength(50);
    expect(lines[0]).toMatch(/console\.log: rows \[\{"status":"‹value›","order_count":‹value›/);
    expect(lines[1]).toBe('[acme/chatty] console.warn: asked for ‹value›');
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(600);
      for (const value of values) expect(line).not.toMatch(new RegExp(`"${value}"|:${value}\\b`));
      expect(line).not.toContain('918273');
    }
  });
});
