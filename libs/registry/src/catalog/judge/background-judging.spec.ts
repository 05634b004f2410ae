import type { Metrics } from '../../metrics';
import { BackgroundJudging } from './background-judging';
import type { StoredReport } from '../model/catalog-records';
import { storedReport, TENANT } from '../fixtures.spec-helper';
import type { ReportSet } from '../model/report-set';

const tenant = TENANT;

const reports = (...ids: string[]) => ids.map((id) => storedReport(id, 'sales'));

/** A lazy report set with `unjudged` templates left. */
const lazySet = (stored: StoredReport[], unjudged = stored.length) =>
  ({ lazy: true, unjudged, storedReports: () => stored }) as unknown as ReportSet;

function setup() {
  const judged: string[] = [];
  const preloaded: number[] = [];
  const pending: number[] = [];
  const judging = new BackgroundJudging(
    {
      preload: async (_tenant, batch) => {
        preloaded.push(batch.length);
      },
      judge: (_tenant, report) => judged.push(report.id),
    },
    { set: (_name: string, value: number) => pending.push(value) } as unknown as Pick<
      Metrics,
      'set'
    >,
  );
  return { judging, judged, preloaded, pending };
}

describe('BackgroundJudging', () => {
  it('judges every report of a lazy set once, preloading each batch, and counts down what is pending', async () => {
    const { judging, judged, preloaded, pending } = setup();
    judging.schedule(tenant, lazySet(reports('a', 'b', 'c')));
    await judging.idle();
    expect(judged).toEqual(['a', 'b', 'c']);
    expect(preloaded).toEqual([3]);
    expect(pending[0]).toBe(3);
    expect(pending.at(-1)).toBe(0);
  });

  it('adds the changed reports of a refresh to the job under way', async () => {
    const { judging, judged } = setup();
    judging.schedule(tenant, lazySet(reports('a', 'b')));
    judging.schedule(tenant, lazySet(reports('a', 'b')), reports('c'));
    await judging.idle();
    expect(judged).toEqual(['a', 'b', 'c']);
  });

  it('leaves alone sets that are not lazy, already judged, without a data schema, or disabled', async () => {
    const { judging, judged, pending } = setup();
    judging.schedule(tenant, { ...lazySet(reports('a')), lazy: false } as ReportSet);
    judging.schedule(tenant, lazySet(reports('a'), 0));
    judging.schedule({ ...tenant, dataSchema: null }, lazySet(reports('a')));
    judging.schedule(tenant, lazySet([storedReport('off', 'sales', 1, 'disabled')]));
    await judging.idle();
    expect(judged).toEqual([]);
    expect(pending).toEqual([]);
  });
});
