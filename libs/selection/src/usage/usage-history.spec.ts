import { parseConversation } from '../rank/conversation';
import type { SearchDoc } from '../index/search-doc';
import { ToolSearchIndex } from '../index/search-index';
import { ASKED_BEFORE, selectTools } from '../rank/selector';
import { UsageHistory } from './usage-history';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T00:00:00Z');
const everyone = (): boolean => true;

describe('UsageHistory', () => {
  const options = { halfLifeDays: 30, maxAgeDays: 180 };

  it('halves a question’s weight every half-life and forgets it past the maximum age', () => {
    const h = new UsageHistory(options);
    expect(h.decay(NOW, NOW)).toBe(1);
    expect(h.decay(NOW - 30 * DAY, NOW)).toBeCloseTo(0.5);
    expect(h.decay(NOW - 60 * DAY, NOW)).toBeCloseTo(0.25);
    expect(h.decay(NOW - 181 * DAY, NOW)).toBe(0);
    // a record from the future (clock skew) counts as now, never more
    expect(h.decay(NOW + DAY, NOW)).toBe(1);
  });

  it('ranks the tool a similar past question led to, fresher questions first', () => {
    const h = new UsageHistory(options, [
      { query: 'bed census for the wards', tool: 'old_tool', at: NOW - 60 * DAY },
      { query: 'bed census for the wards', tool: 'new_tool', at: NOW - DAY },
    ]);
    const hits = h.search('bed census wards', everyone, 5, NOW);
    expect(hits.map((x) => x.name)).toEqual(['new_tool', 'old_tool']);
    expect(hits[1].score / hits[0].score).toBeCloseTo(Math.pow(0.5, 59 / 30), 2);
  });

  it('ignores questions past the maximum age, and unlike ones', () => {
    const h = new UsageHistory(options, [
      { query: 'bed census for the wards', tool: 'ancient', at: NOW - 365 * DAY },
      { query: 'invoice ageing by supplier', tool: 'unrelated', at: NOW },
    ]);
    expect(h.search('bed census wards', everyone, 5, NOW)).toEqual([]);
  });

  it('never names a tool the caller may not use', () => {
    const h = new UsageHistory(options, [
      { query: 'bed census', tool: 'secret', at: NOW },
      { query: 'bed census', tool: 'open', at: NOW - DAY },
    ]);
    const hits = h.search('bed census', (n) => n !== 'secret', 5, NOW);
    expect(hits.map((x) => x.name)).toEqual(['open']);
  });

  it('holds what it was given only: two histories share nothing', () => {
    const a = new UsageHistory(options, [{ query: 'bed census', tool: 'a_tool', at: NOW }]);
    const b = new UsageHistory(options);
    expect(a.search('bed census', everyone, 5, NOW)).toHaveLength(1);
    expect(b.search('bed census', everyone, 5, NOW)).toEqual([]);
    expect(b.size).toBe(0);
  });

  it('skips a question of stop words only', () => {
    const h = new UsageHistory(options);
    h.add({ query: 'what is it', tool: 'x', at: NOW });
    expect(h.size).toBe(0);
  });
});

describe('selectTools with the usage history', () => {
  const docs: SearchDoc[] = ['alpha_report', 'beta_report'].map((name) => ({
    name,
    title: name.replace('_', ' '),
    description: 'A report.',
    category: 'c',
    contexts: ['X'],
    filters: '',
    values: '',
    fields: '',
    synonyms: [],
    examples: [],
    signature: name,
  }));
  const index = new ToolSearchIndex();
  index.sync(docs);
  const history = new UsageHistory({ halfLifeDays: 30, maxAgeDays: 180 }, [
    { query: 'zibble quorps', tool: 'beta_report', at: NOW - DAY },
  ]);
  const signals = { history, now: NOW, fusion: { k: 10, semantic: 0, history: 0.3 } };
  const ask = (text: string) => parseConversation([{ role: 'user', content: text }]);

  it('ranks the tool a past question led to, and says why', () => {
    const sel = selectTools(index, ask('zibble quorps'), everyone, 5, signals);
    expect(sel.tools[0]).toEqual(
      expect.objectContaining({ name: 'beta_report', matched: [ASKED_BEFORE] }),
    );
  });

  it('never names it to a caller who may not use it', () => {
    const sel = selectTools(index, ask('zibble quorps'), (n) => n !== 'beta_report', 5, signals);
    expect(sel.tools.map((t) => t.name)).not.toContain('beta_report');
  });
});

describe('UsageHistory weighs users, not rows (issue 38)', () => {
  const options = { halfLifeDays: 30, maxAgeDays: 180, minUsers: 3 };
  const said = (user: string, tool = 'alpha_report') => ({
    query: 'penguin headcount',
    tool,
    at: NOW - DAY,
    user,
  });

  it("one user's 200 records are one voice: the same score as one record, for that user", () => {
    const once = new UsageHistory(options, [said('alice')]);
    const often = new UsageHistory(
      options,
      Array.from({ length: 200 }, () => said('alice')),
    );
    const score = (h: UsageHistory) => h.search('penguin headcount', everyone, 5, NOW, 'alice');
    expect(score(often)).toEqual(score(once));
    expect(score(once)).toHaveLength(1);
  });

  it("others' voices count for a caller only once minUsers distinct users agree", () => {
    const two = new UsageHistory(options, [said('alice'), said('bob'), said('bob')]);
    expect(two.search('penguin headcount', everyone, 5, NOW, 'carol')).toEqual([]);
    const three = new UsageHistory(options, [said('alice'), said('bob'), said('dave')]);
    const hits = three.search('penguin headcount', everyone, 5, NOW, 'carol');
    expect(hits.map((h) => h.name)).toEqual(['alpha_report']);
    // three voices, each its best similarity times decay: three times one voice
    const one = new UsageHistory(options, [said('alice')]).search(
      'penguin headcount',
      everyone,
      5,
      NOW,
      'alice',
    );
    expect(hits[0].score).toBeCloseTo(3 * one[0].score, 10);
  });

  it('records without a user (a replayed set) are each a voice, and minUsers defaults to 1', () => {
    const replayed = new UsageHistory({ halfLifeDays: 30, maxAgeDays: 180 }, [
      { query: 'penguin headcount', tool: 'alpha_report', at: NOW - DAY },
      { query: 'penguin headcount', tool: 'alpha_report', at: NOW - DAY },
    ]);
    const [hit] = replayed.search('penguin headcount', everyone, 5, NOW);
    const single = new UsageHistory({ halfLifeDays: 30, maxAgeDays: 180 }, [
      { query: 'penguin headcount', tool: 'alpha_report', at: NOW - DAY },
    ]).search('penguin headcount', everyone, 5, NOW)[0];
    expect(hit.score).toBeCloseTo(2 * single.score, 10);
  });
});
