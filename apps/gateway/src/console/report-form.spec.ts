import { CHART_TYPES, mergePatch, REPORT_DOCUMENT_SCHEMA } from '@app/templates';
import {
  CHART_TYPES as FORM_CHART_TYPES,
  changes,
  formDocument,
  toDraft,
} from '../../../console/src/report-form';
import type { Draft } from '../../../console/src/report-form';

/**
 * A report document with every member of the report document's schema set (issue #39: a console
 * save wiped `chart` and `run_as_task`). A member added to the schema and not here fails the
 * first test; once here, the others check a console save keeps it.
 */
const EVERY_MEMBER: Record<keyof typeof REPORT_DOCUMENT_SCHEMA.properties, unknown> = {
  id: 'shipments_by_region',
  name: 'Shipments by region',
  description: 'Shipments per region and month.',
  sql_template: 'SELECT s.region, s.month, s.count FROM shipments s WHERE s.region = :region',
  category: 'logistics',
  status: 'disabled',
  synonyms: ['deliveries', 'parcels'],
  example_questions: ['How many parcels went north in May?'],
  datasource: 'warehouse',
  chart: { type: 'line', x: 'month', y: ['count'], series: 'region' },
  run_as_task: true,
  cache_ttl_seconds: 300,
  filters: [
    {
      name: 'region',
      type: 'enum',
      description: 'the region',
      required: false,
      enum_values: ['north', 'south'],
      default: 'north',
    },
  ],
  fields: [
    { name: 'region', type: 'string', description: '' },
    { name: 'month', type: 'date', description: 'first day of the month' },
    { name: 'count', type: 'integer', description: 'shipments' },
  ],
};
/** What another version of the API may add: the form does not know it. */
const LOADED = { ...EVERY_MEMBER, a_member_of_a_later_version: { kept: true } };

const save = (draft: Draft) => mergePatch(LOADED, changes(LOADED, formDocument(draft, LOADED)));

describe('the console Author form keeps every member of a report (issue #39)', () => {
  it('the fixture sets every member of the report document schema', () => {
    expect(Object.keys(EVERY_MEMBER).sort()).toEqual(
      Object.keys(REPORT_DOCUMENT_SCHEMA.properties).sort(),
    );
    expect(FORM_CHART_TYPES).toEqual(CHART_TYPES);
  });

  it('a save with nothing changed sends an empty patch and keeps the document as loaded', () => {
    const draft = toDraft(LOADED);
    expect(changes(LOADED, formDocument(draft, LOADED))).toEqual({});
    expect(save(draft)).toEqual(LOADED);
  });

  it('the form document (what validate and try judge) is the loaded one, members it does not show included', () => {
    expect(formDocument(toDraft(LOADED), LOADED)).toEqual(LOADED);
  });

  it('every member the form shows round-trips through it', () => {
    const draft = toDraft(LOADED);
    expect(draft).toMatchObject({
      datasource: 'warehouse',
      runAsTask: true,
      synonyms: 'deliveries\nparcels',
      exampleQuestions: 'How many parcels went north in May?',
      chart: { type: 'line', x: 'month', y: 'count', series: 'region' },
    });
  });

  it('a change sends only the member it changed, and the rest stays', () => {
    const draft = { ...toDraft(LOADED), name: 'Renamed' };
    expect(changes(LOADED, formDocument(draft, LOADED))).toEqual({ name: 'Renamed' });
    expect(save(draft)).toEqual({ ...LOADED, name: 'Renamed' });
  });

  it('clearing an optional member in the form removes it (null), a chart part included', () => {
    const draft = toDraft(LOADED);
    draft.runAsTask = false;
    draft.synonyms = '';
    draft.chart = { ...draft.chart, series: '' };
    const patch = changes(LOADED, formDocument(draft, LOADED));
    expect(patch).toEqual({ run_as_task: null, synonyms: null, chart: { series: null } });
    const saved = save(draft) as Record<string, unknown>;
    expect(saved.run_as_task).toBeUndefined();
    expect(saved.synonyms).toBeUndefined();
    expect(saved.chart).toEqual({ type: 'line', x: 'month', y: ['count'] });
    expect(saved.cache_ttl_seconds).toBe(300);
    draft.chart.type = '';
    expect(changes(LOADED, formDocument(draft, LOADED)).chart).toBeNull();
  });

  it('a new report is a whole document with only what the form set', () => {
    const draft = toDraft({ name: 'n', description: 'd', category: 'c', sql_template: 'SELECT 1' });
    expect(formDocument(draft)).toEqual({
      name: 'n',
      description: 'd',
      category: 'c',
      sql_template: 'SELECT 1',
      status: 'active',
      filters: [],
      fields: [],
    });
  });
});
