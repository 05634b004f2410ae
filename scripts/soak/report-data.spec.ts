import { afterGcFigures, FLAT_MB_PER_MIN, slopePerMinute } from './report-data';
import { Recorder } from './model';

function recorderWith(
  samples: Array<{ min: number; replica: string; pid: number; heapMb: number; rssMb: number }>,
): Recorder {
  const rec = new Recorder(0);
  rec.warmupEnd = 20_000;
  for (const s of samples) rec.afterGc.push({ t: s.min * 60_000, ...s });
  return rec;
}

describe('soak memory after GC', () => {
  it('measures slopes in MB per minute', () => {
    expect(slopePerMinute([0, 60, 120].map((t, i) => ({ t, y: 100 + 2 * i })))).toBeCloseTo(2);
    expect(slopePerMinute([{ t: 0, y: 1 }])).toBeNaN();
  });

  it('judges each replica life apart: a restart is not growth', () => {
    const rec = recorderWith([
      // gw1 dies at minute 3 (pid 10) and comes back smaller (pid 11); each life is flat
      ...[1, 2, 3].map((min) => ({ min, replica: 'gw1', pid: 10, heapMb: 80, rssMb: 200 })),
      ...[4, 5, 6].map((min) => ({ min, replica: 'gw1', pid: 11, heapMb: 60, rssMb: 150 })),
      ...[1, 2, 3, 4, 5, 6].map((min) => ({
        min,
        replica: 'gw2',
        pid: 20,
        heapMb: 70,
        rssMb: 190,
      })),
    ]);
    const f = afterGcFigures(rec);
    expect(f.judged).toBe(3);
    expect(f.worstHeapSlope).toBeCloseTo(0);
    expect(f.worstRssSlope).toBeCloseTo(0);
    expect(f.rows).toHaveLength(3);
  });

  it('reports the steepest growth, and leaves out lives too short to judge and the warm-up', () => {
    const rec = recorderWith([
      // growing 3 MB/min of RSS after GC: not flat
      ...[1, 2, 3, 4].map((min) => ({
        min,
        replica: 'gw1',
        pid: 10,
        heapMb: 50 + min,
        rssMb: 150 + 3 * min,
      })),
      // two samples only: shown, not judged
      ...[5, 6].map((min) => ({
        min,
        replica: 'gw2',
        pid: 21,
        heapMb: 50 + 100 * min,
        rssMb: 150,
      })),
      // in the warm-up (20 s): left out
      { min: 0.1, replica: 'gw2', pid: 20, heapMb: 500, rssMb: 900 },
    ]);
    const f = afterGcFigures(rec);
    expect(f.judged).toBe(1);
    expect(f.worstRssSlope).toBeCloseTo(3);
    expect(f.worstRssSlope).toBeGreaterThan(FLAT_MB_PER_MIN);
    expect(f.worstHeapSlope).toBeCloseTo(1);
    expect(f.rows.map((r) => r.split(' |')[0])).toEqual(['| gw1 (pid 10)', '| gw2 (pid 21)']);
  });

  it('judges nothing when the run is too short', () => {
    const f = afterGcFigures(
      recorderWith([{ min: 1, replica: 'gw1', pid: 1, heapMb: 1, rssMb: 1 }]),
    );
    expect(f.judged).toBe(0);
    expect(f.worstHeapSlope).toBeNaN();
  });
});
