import { parseConversation } from './conversation';
import type { SearchDoc } from '../index/search-doc';
import { ToolSearchIndex } from '../index/search-index';
import { DEFAULT_RANKING, familyOf } from '../index/search-query';
import { selectTools } from './selector';

function doc(name: string, title: string): SearchDoc {
  return {
    name,
    title,
    description: `${title}.`,
    category: 'ops',
    contexts: ['MANUFACTURING'],
    filters: '',
    values: '',
    fields: '',
    synonyms: [],
    examples: [],
    signature: title,
  };
}

const DOCS = [
  doc('scrap_plant', 'Scrap rate by plant'),
  doc('scrap_shift', 'Scrap rate by shift'),
  doc('scrap_month', 'Scrap rate per month'),
  doc('downtime_shift', 'Unplanned downtime by shift'),
  doc('downtime_plant', 'Unplanned downtime by plant'),
];
const everyone = (): boolean => true;

function followUp(first: string, called: string, next: string) {
  return parseConversation([
    { role: 'user', content: first },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: called, arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: '[]' },
    { role: 'user', content: next },
  ]);
}

describe('follow-ups keep the report family', () => {
  const index = new ToolSearchIndex(DEFAULT_RANKING);
  index.sync(DOCS);
  const off = new ToolSearchIndex({ ...DEFAULT_RANKING, followUpFamily: 1 });
  off.sync(DOCS);

  it('names a family by the title before its breakdown', () => {
    expect(familyOf('Scrap rate by plant')).toBe('scrap rate');
    expect(familyOf('Scrap rate per month')).toBe('scrap rate');
    expect(familyOf('Good units produced')).toBe('good units produced');
    expect(index.siblings('scrap_plant').sort()).toEqual([
      'scrap_month',
      'scrap_plant',
      'scrap_shift',
    ]);
  });

  it('"same by shift" after scrap by plant stays with scrap', () => {
    const c = followUp('scrap rate by plant', 'scrap_plant', 'same by shift');
    expect(selectTools(index, c, everyone, 3).tools[0].name).toBe('scrap_shift');
  });

  it('"and per month?" goes to the family’s monthly report', () => {
    const c = followUp('scrap rate by plant', 'scrap_plant', 'and per month?');
    expect(selectTools(index, c, everyone, 3).tools[0].name).toBe('scrap_month');
  });

  it('leaves the family when the follow-up names another measure', () => {
    const c = followUp('scrap rate by shift', 'scrap_shift', 'and what about downtime?');
    expect(selectTools(index, c, everyone, 3).tools[0].name).toBe('downtime_shift');
  });

  it('keeps permissions: a sibling the caller may not use is not named', () => {
    const c = followUp('scrap rate by plant', 'scrap_plant', 'same by shift');
    const names = selectTools(index, c, (n) => n !== 'scrap_shift', 5).tools.map((t) => t.name);
    expect(names).not.toContain('scrap_shift');
  });

  it('is off at a boost of 1', () => {
    const c = followUp('scrap rate by plant', 'scrap_plant', 'and per month?');
    const boosted = selectTools(index, c, everyone, 5).tools.map((t) => t.score);
    const plain = selectTools(off, c, everyone, 5).tools.map((t) => t.score);
    expect(boosted).not.toEqual(plain);
  });

  it('forgets a removed report’s family', () => {
    const local = new ToolSearchIndex(DEFAULT_RANKING);
    local.sync(DOCS);
    local.sync(DOCS.filter((d) => !d.name.startsWith('scrap')));
    expect(local.siblings('downtime_shift').sort()).toEqual(['downtime_plant', 'downtime_shift']);
    expect(local.namesOtherFamily('scrap', 'downtime_shift')).toBe(false);
    expect(local.namesOtherFamily('downtim', 'downtime_shift')).toBe(false);
  });
});
