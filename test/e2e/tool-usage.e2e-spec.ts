import { sql } from 'kysely';
import { ASKED_BEFORE } from '@app/selection';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { eventually } from '../support/eventually';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

interface SelectBody {
  ranking: Array<{ name: string; matched: string[] }>;
}

// words no report, vocabulary or word vector knows: only the usage history can link them
const QUESTION = 'frobnicated zorbles quuxes';
const TOOL = 'query_report_low_stock';
const ask = (text: string) => ({ messages: [{ role: 'user', content: text }], limit: 50 });

describe('learning from use: gateway.tool_usage (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  async function select(who: TokenClaims, text: string): Promise<SelectBody> {
    const res = await gw.request('/v1/tools/select', { method: 'POST', as: who, json: ask(text) });
    expect(res.status).toBe(200);
    return (await res.json()) as SelectBody;
  }

  async function usageRows(tenant: string) {
    const { rows } = await sql<{
      user_id: string;
      query: string;
      tool_name: string;
      source: string;
    }>`
      SELECT user_id, query, tool_name, source FROM gateway.tool_usage WHERE tenant_id = ${tenant}`.execute(
      gw.database.handle.db,
    );
    return rows;
  }

  const askedBefore = (body: SelectBody) =>
    body.ranking.filter((t) => t.matched.includes(ASKED_BEFORE)).map((t) => t.name);

  it('records the tool called after a select, and the next same question finds it, in that tenant only', async () => {
    // both tenants may use the tool: the same name, the same grants
    for (const who of [alice, gina]) {
      const list = await gw.request('/v1/tools', { as: who });
      const names = ((await list.json()) as { tools: Array<{ function: { name: string } }> }).tools;
      expect(names.map((t) => t.function.name)).toContain(TOOL);
      expect(askedBefore(await select(who, QUESTION))).toEqual([]);
    }

    // alice asked (above), then called low_stock: that is the model's real choice
    const call = await gw.request(`/v1/tools/${TOOL}/call`, {
      method: 'POST',
      as: alice,
      json: { arguments: {} },
    });
    expect(call.status).toBe(200);
    const rows = await eventually(async () => {
      const r = await usageRows('acme');
      if (r.length === 0) throw new Error('not recorded yet');
      return r;
    });
    expect(rows).toEqual([
      { user_id: 'alice', query: QUESTION, tool_name: TOOL, source: 'select' },
    ]);

    const again = await select(alice, QUESTION);
    expect(again.ranking[0]).toEqual(
      expect.objectContaining({ name: TOOL, matched: [ASKED_BEFORE] }),
    );

    // globex has the same tool and asks the same words: acme's history never reaches it
    expect(askedBefore(await select(gina, QUESTION))).toEqual([]);
    expect(await usageRows('globex')).toEqual([]);
  });

  it('records one call per question: a second call without a new question is not learned', async () => {
    const callLowStock = async () => {
      const res = await gw.request(`/v1/tools/${TOOL}/call`, {
        method: 'POST',
        as: alice,
        json: { arguments: {} },
      });
      expect(res.status).toBe(200);
    };
    const before = (await usageRows('acme')).length;
    await select(alice, 'blorfing snargle');
    await callLowStock();
    await callLowStock();
    // a sentinel question and call: once its row is in, every earlier write is too
    await select(alice, 'sentinel wibbles');
    await callLowStock();
    await eventually(async () => {
      const r = await usageRows('acme');
      const seen = ['sentinel wibbles', 'blorfing snargle'].every((q) =>
        r.some((x) => x.query === q),
      );
      if (!seen) throw new Error('waiting');
    });
    const queries = (await usageRows('acme')).map((r) => r.query);
    expect(queries.length).toBe(before + 2);
    expect(queries.filter((q) => q === 'blorfing snargle')).toHaveLength(1);
  });
});

describe('learning from use through search_tools and call_tool (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    // a low threshold: lists carry the built-ins, as for a big catalog
    gw = await startGateway({ TOOLS_INLINE_MAX: '2', TOOLS_INLINE_COUNT: '1' });
  });
  afterAll(() => gw.close());

  const call = (name: string, args: unknown) =>
    gw.request(`/v1/tools/${name}/call`, { method: 'POST', as: alice, json: { arguments: args } });

  it('records the tool call_tool ran after a search_tools, with the search query', async () => {
    expect((await call('search_tools', { query: 'gribbled wozzles' })).status).toBe(200);
    expect((await call('call_tool', { name: TOOL, arguments: {} })).status).toBe(200);
    const rows = await eventually(async () => {
      const { rows: r } = await sql<{ query: string; tool_name: string; source: string }>`
        SELECT query, tool_name, source FROM gateway.tool_usage WHERE tenant_id = 'acme'`.execute(
        gw.database.handle.db,
      );
      if (r.length === 0) throw new Error('not recorded yet');
      return r;
    });
    expect(rows).toEqual([{ query: 'gribbled wozzles', tool_name: TOOL, source: 'search_tools' }]);
    const again = await call('search_tools', { query: 'gribbled wozzles' });
    const body = (await again.json()) as { result?: { tools: Array<{ name: string }> } };
    expect(JSON.stringify(body)).toContain(TOOL);
  });
});
