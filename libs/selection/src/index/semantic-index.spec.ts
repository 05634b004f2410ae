import { parseConversation } from '../rank/conversation';
import type { SearchDoc } from './search-doc';
import { ToolSearchIndex } from './search-index';
import { SemanticIndex } from './semantic-index';
import { selectTools, SIMILAR_MEANING } from '../rank/selector';
import { WordVectors } from '../words/word-vectors';

// a toy table: lodging words point one way, money words another, time words a third
const VECTORS = WordVectors.decode(
  WordVectors.encode(3, [
    ['occupancy', [1, 0, 0.1]],
    ['rooms', [0.9, 0.1, 0]],
    ['hotels', [0.95, 0, 0.05]],
    ['full', [0.8, 0.1, 0.2]],
    ['invoices', [0, 1, 0]],
    ['overdue', [0.1, 0.9, 0.2]],
    ['unpaid', [0, 0.95, 0.1]],
    ['monthly', [0, 0, 1]],
  ]),
);

function doc(name: string, title: string, description = ''): SearchDoc {
  return {
    name,
    title,
    description,
    category: 'c',
    contexts: [name.startsWith('hot') ? 'STAYS' : 'FINANCE'],
    filters: '',
    values: '',
    fields: '',
    synonyms: [],
    examples: [],
    signature: `${title}:${description}`,
  };
}

const DOCS = [
  doc('hot_occupancy', 'Room occupancy', 'Rooms sold monthly'),
  doc('fin_overdue', 'Overdue invoices', 'Invoices past due monthly'),
];
const everyone = (): boolean => true;

describe('SemanticIndex', () => {
  const index = new SemanticIndex(VECTORS);
  index.sync(DOCS);

  it('finds a tool that shares no word with the question', () => {
    const hits = index.search(['how full are the hotels'], everyone, 5);
    expect(hits[0].name).toBe('hot_occupancy');
    expect(index.search(['unpaid'], everyone, 5)[0].name).toBe('fin_overdue');
  });

  it('never returns a tool the caller may not use', () => {
    const hits = index.search(['how full are the hotels'], (n) => n !== 'hot_occupancy', 5);
    expect(hits.map((h) => h.name)).toEqual(['fin_overdue']);
  });

  it('has nothing to say about words the table lacks', () => {
    expect(index.search(['zzz qqq'], everyone, 5)).toEqual([]);
  });

  it('follows the catalog: removed tools go, changed ones are re-read', () => {
    const local = new SemanticIndex(VECTORS);
    local.sync(DOCS);
    local.sync([DOCS[1]]);
    expect(local.size).toBe(1);
    expect(local.search(['hotels'], everyone, 5).map((h) => h.name)).toEqual(['fin_overdue']);
    local.sync([{ ...DOCS[1], title: 'Hotel rooms', signature: 'v2' }]);
    expect(local.search(['hotels'], everyone, 5)[0].score).toBeGreaterThan(0.8);
  });

  it('weighs the last turn over earlier ones', () => {
    const hits = index.search(['unpaid invoices', 'and the hotels?'], everyone, 5);
    expect(hits[0].name).toBe('hot_occupancy');
  });
});

describe('selectTools with the semantic signal', () => {
  // no vocabulary: what the lexical side finds comes from the docs' own words only
  const lexical = new ToolSearchIndex({
    stemming: true,
    typoTolerance: false,
    businessSynonyms: false,
    wordnet: false,
    countries: false,
    conversation: true,
  });
  lexical.sync(DOCS);
  const semantic = new SemanticIndex(VECTORS);
  semantic.sync(DOCS);
  const signals = { semantic, fusion: { k: 10, semantic: 1 } };

  it('adds tools found by meaning only, and says so', () => {
    const sel = selectTools(
      lexical,
      parseConversation([{ role: 'user', content: 'how full are the hotels' }]),
      everyone,
      5,
      signals,
    );
    expect(sel.tools[0].name).toBe('hot_occupancy');
    expect(sel.tools[0].matched).toEqual([SIMILAR_MEANING]);
  });

  it('keeps permissions: a forbidden tool is in neither list', () => {
    const sel = selectTools(
      lexical,
      parseConversation([{ role: 'user', content: 'how full are the hotel rooms' }]),
      (n) => n !== 'hot_occupancy',
      5,
      signals,
    );
    expect(sel.tools.map((t) => t.name)).not.toContain('hot_occupancy');
  });

  it('without signals ranks as before', () => {
    const conversation = parseConversation([{ role: 'user', content: 'overdue invoices' }]);
    const plain = selectTools(lexical, conversation, everyone, 5);
    const fused = selectTools(lexical, conversation, everyone, 5, {
      semantic,
      fusion: { k: 10, semantic: 0 },
    });
    expect(fused.tools.map((t) => t.name)).toEqual(plain.tools.map((t) => t.name));
  });
});
