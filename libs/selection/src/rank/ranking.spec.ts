import { conversationQuery, parseConversation } from './conversation';
import type { SearchDoc } from '../index/search-doc';
import { ToolSearchIndex } from '../index/search-index';
import { DEFAULT_RANKING } from '../index/search-query';
import type { RankingOptions } from '../index/search-query';
import { selectTools, vocabularyFor } from './selector';
import { BUSINESS_WEIGHT, countryNames, Vocabulary } from '../words/vocabulary';

function doc(name: string, title: string, description: string, values = ''): SearchDoc {
  return {
    name,
    title,
    description,
    category: 'c',
    contexts: ['CTX'],
    filters: '',
    values,
    fields: '',
    synonyms: [],
    examples: [],
    signature: `${title}:${description}:${values}`,
  };
}

const DOCS = [
  doc(
    'revenue_by_country',
    'Revenue by country',
    'Invoiced revenue per customer country.',
    'us de fr',
  ),
  doc('revenue_by_region', 'Revenue by region', 'Invoiced revenue per sales region.', 'east west'),
  doc(
    'revenue_by_region_channel',
    'Revenue by region and channel',
    'Invoiced revenue per sales region and per sales channel.',
    'east west online retail',
  ),
  doc('delivery_time', 'Delivery lead time', 'Days from dispatch to delivery at the customer.'),
  doc('on_time_delivery', 'On-time delivery rate', 'Share of shipments delivered on the date.'),
  doc(
    'ticket_volume_by_issue_type',
    'Ticket volume by issue type',
    'Support tickets, cases and requests opened per issue type.',
  ),
  doc(
    'supplier_defects',
    'Supplier defect rate by vendor',
    'Quality of goods received from each vendor.',
  ),
  doc('response_time_by_tier', 'First response time by tier', 'Hours to first reply.', 'free pro'),
  doc(
    'response_time_by_channel',
    'First response time by channel',
    'Hours to first reply.',
    'chat email phone',
  ),
];

const everyone = (): boolean => true;
const top = (question: string, options: RankingOptions = DEFAULT_RANKING): string[] => {
  const index = new ToolSearchIndex(options);
  index.sync(DOCS);
  const conversation = parseConversation([{ role: 'user', content: question }]);
  return selectTools(index, conversation, everyone, 3).tools.map((t) => t.name);
};

const matched = (question: string, options: RankingOptions = DEFAULT_RANKING): string[] => {
  const index = new ToolSearchIndex(options);
  index.sync(DOCS);
  const conversation = parseConversation([{ role: 'user', content: question }]);
  return selectTools(index, conversation, everyone, 1).tools[0].matched;
};

describe('ranking parts', () => {
  it('a country named in words finds the report whose filter holds its ISO code', () => {
    expect(countryNames().get('germany')).toBe('de');
    expect(countryNames().get('united kingdom')).toBe('gb');
    expect(top('revenue in Germany')[0]).toBe('revenue_by_country');
    expect(matched('revenue in Germany')).toEqual(['germany~de', 'revenue']);
    // the part can be switched off (the eval measures what it adds)
    expect(matched('revenue in Germany', { ...DEFAULT_RANKING, countries: false })).toEqual([
      'revenue',
    ]);
  });

  it('a phrase of the vocabulary ("how long") stands for its words', () => {
    const vocabulary = new Vocabulary({
      business: true,
      wordnet: false,
      countries: true,
      stemming: true,
    });
    expect(vocabulary.expandPhrase('how long').map((e) => e.term)).toContain('time');
    expect(vocabulary.expandPhrase('united states').map((e) => e.term)).toEqual(['us']);
    expect(vocabulary.expandPhrase('not a phrase')).toEqual([]);
    expect(top('how long does it take to reach the customer')[0]).toBe('delivery_time');
  });

  it('the synonyms of one word share its credit (by the square root of how many the catalog uses)', () => {
    // "problems" ~ ticket, case, request, issue: they share the word's credit
    const index = new ToolSearchIndex();
    index.sync(DOCS);
    const conversation = parseConversation([{ role: 'user', content: 'problems' }]);
    const query = conversationQuery(conversation, vocabularyFor(index), index.options, (t) =>
      index.knows(t),
    );
    const shares = [...query.weights.entries()].filter(([t]) => t !== 'problem');
    expect(shares.map(([t]) => t).sort()).toEqual(['case', 'issu', 'request', 'ticket']);
    for (const [, weight] of shares) expect(weight).toBeCloseTo(BUSINESS_WEIGHT / Math.sqrt(4));
  });

  it('a filter value the user names picks the report that has it', () => {
    expect(top('first reply time on chat')[0]).toBe('response_time_by_channel');
    expect(top('first reply time for pro customers')[0]).toBe('response_time_by_tier');
  });

  it('of near-duplicates, the one whose title the question covers goes first', () => {
    expect(top('revenue by region').slice(0, 2)).toEqual([
      'revenue_by_region',
      'revenue_by_region_channel',
    ]);
    expect(top('revenue by region and channel')[0]).toBe('revenue_by_region_channel');
  });

  it('only words no tool uses are matched fuzzily and by prefix', () => {
    const index = new ToolSearchIndex();
    index.sync([
      doc('low_stock', 'Low stock', 'Items below their reorder point.'),
      doc('stockouts', 'Stockouts', 'Items that ran out.'),
    ]);
    const names = (text: string) =>
      selectTools(
        index,
        parseConversation([{ role: 'user', content: text }]),
        everyone,
        5,
      ).tools.map((t) => t.name);
    // "stock" is a catalog word: it is not read as the start of "stockouts"
    expect(names('stock')).toEqual(['low_stock']);
    // "stockk" is no catalog word: a typo of "stock", found fuzzily
    expect(names('stockk')).toContain('low_stock');
    expect(names('stocko')[0]).toBe('stockouts');
  });
});
