import { initSqlParser, ReportTool } from '@app/templates';
import { storedReport as stored } from '../fixtures.spec-helper';
import { ReportSet } from './report-set';
import type { AdmitReport } from './report-set';

/** Serves active reports, counting how often it is asked. */
function counting(): { admit: AdmitReport; calls: string[] } {
  const calls: string[] = [];
  const admit: AdmitReport = (s) => {
    calls.push(s.metadata.id);
    const { id, version } = s.metadata;
    return s.status === 'disabled'
      ? { id, version, status: { served: false, reason: 'disabled' } }
      : { id, version, status: { served: true }, tool: new ReportTool(s.metadata) };
  };
  return { admit, calls };
}

const names = (set: ReportSet, category: string) =>
  set
    .inCategory(category)
    .map((t) => t.definition.name)
    .sort();

describe('ReportSet', () => {
  // loading the parser (WebAssembly) can take seconds on a loaded machine
  beforeAll(() => initSqlParser(), 30_000);
  const initial = [stored('a', 'sales'), stored('b', 'sales'), stored('c', 'finance')];

  it('is the same object when nothing changed, and judges nothing again', () => {
    const { admit, calls } = counting();
    const set = ReportSet.of(initial, 'scope1', admit);
    expect(calls).toEqual(['a', 'b', 'c']);
    expect(set.patch([], [], 'scope1', admit)).toBe(set);
    expect(calls).toHaveLength(3);
  });

  it('judges only the changed reports and keeps every other verdict', () => {
    const { admit, calls } = counting();
    const set = ReportSet.of(initial, 'scope1', admit);
    const next = set.patch([stored('b', 'finance', 2)], ['a'], 'scope1', admit);
    expect(calls.slice(3)).toEqual(['b']);
    expect(next.verdict('c')).toBe(set.verdict('c'));
    expect(next.verdict('a')).toBeUndefined();
    expect(next.tool('query_report_a')).toBeUndefined();
    expect(names(next, 'sales')).toEqual([]);
    expect(names(next, 'finance')).toEqual(['query_report_b', 'query_report_c']);
    expect(next.size).toBe(2);
    // the earlier set is untouched: catalogs of the older version still use it
    expect(names(set, 'sales')).toEqual(['query_report_a', 'query_report_b']);
    expect(set.size).toBe(3);
  });

  it('keeps a disabled report out of the tools but knows why', () => {
    const { admit } = counting();
    const set = ReportSet.of(initial, 'scope1', admit);
    const next = set.patch([stored('c', 'finance', 2, 'disabled')], [], 'scope1', admit);
    expect(next.tool('query_report_c')).toBeUndefined();
    expect(names(next, 'finance')).toEqual([]);
    expect(next.verdict('c')?.status).toEqual({ served: false, reason: 'disabled' });
  });

  it('a removal and a re-add in one patch leaves the report present', () => {
    const { admit } = counting();
    const set = ReportSet.of(initial, 'scope1', admit);
    const next = set.patch([stored('a', 'inventory', 2)], ['a'], 'scope1', admit);
    expect(next.verdict('a')?.version).toBe(2);
    expect(names(next, 'inventory')).toEqual(['query_report_a']);
    expect(names(next, 'sales')).toEqual(['query_report_b']);
  });

  it('judges every report again when the data scope changes', () => {
    const { admit, calls } = counting();
    const set = ReportSet.of(initial, 'scope1', admit);
    const next = set.patch([], [], 'scope2', admit);
    expect(calls.slice(3).sort()).toEqual(['a', 'b', 'c']);
    expect(next.scope).toBe('scope2');
    expect(next.size).toBe(3);
  });
});

describe('a partial ReportSet', () => {
  // loading the parser (WebAssembly) can take seconds on a loaded machine
  beforeAll(() => initSqlParser(), 30_000);
  const reach = { categories: ['sales'], ids: ['x'] };

  it('holds only what it absorbed, and knows which parts of a reach it does not hold', () => {
    const set = ReportSet.partial('scope1', counting().admit);
    expect(set.complete).toBe(false);
    expect(set.missing(reach)).toEqual({ categories: ['sales'], ids: ['x'] });
    set.absorb([stored('a', 'sales'), stored('b', 'sales')], { categories: ['sales'], ids: [] });
    expect(names(set, 'sales')).toEqual(['query_report_a', 'query_report_b']);
    expect(set.missing(reach)).toEqual({ categories: [], ids: ['x'] });
    // an id read and not found is held too (there is nothing to read)
    set.absorb([], { categories: [], ids: ['x'] });
    expect(set.missing(reach)).toEqual({ categories: [], ids: [] });
    // an id it holds through a category is not read again
    expect(set.missing({ categories: [], ids: ['a'] })).toEqual({ categories: [], ids: [] });
  });

  it('replaces a report it holds only by a newer row, judging it again', () => {
    const { admit, calls } = counting();
    const set = ReportSet.partial('scope1', admit);
    const newer = { ...stored('a', 'sales', 2), updatedAt: '2026-12-01T00:00:00Z' };
    set.absorb([newer], { categories: ['sales'], ids: [] });
    expect(set.verdict('a')?.version).toBe(2);
    set.absorb([stored('a', 'sales', 1)], { categories: [], ids: ['a'] });
    expect(set.verdict('a')?.version).toBe(2);
    expect(calls).toEqual(['a']);
  });

  it('stays partial through a patch, with what it held, and a complete set ignores absorb', () => {
    const { admit } = counting();
    const set = ReportSet.partial('scope1', admit);
    set.absorb([stored('a', 'sales')], { categories: ['sales'], ids: [] });
    const next = set.patch([stored('c', 'finance')], [], 'scope1', admit);
    expect(next.complete).toBe(false);
    expect(next.missing(reach)).toEqual({ categories: [], ids: ['x'] });
    const rescoped = set.patch([], [], 'scope2', admit);
    expect(rescoped.complete).toBe(false);
    expect(rescoped.size).toBe(1);
    const full = ReportSet.of([stored('a', 'sales')], 'scope1', admit);
    full.absorb([stored('z', 'sales')], { categories: ['sales'], ids: [] });
    expect(full.size).toBe(1);
    expect(full.missing(reach)).toEqual({ categories: [], ids: [] });
  });
});
