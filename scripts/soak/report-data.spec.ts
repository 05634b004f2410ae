import {
  afterGcFigures,
  FLAT_MB_PER_MIN,
  LIFE_WARMUP_MS,
  NOISE_MB,
  slopePerMinute,
} from './report-data';
import { Recorder } from './model';

type Life = { replica: string; pid: number; bornMin: number };
type Gc = { min: number; heapMb: number; rssMb: number };

/** Replica lives (born when their pid is first seen in the RSS samples) and their GC samples. */
function recorderWith(lives: Array<Life & { gc: Gc[] }>): Recorder {
  const rec = new Recorder(0);
  rec.warmupEnd = 20_000;
  for (const life of lives) {
    rec.rss.push({ t: life.bornMin * 60_000, replica: life.replica, pid: life.pid, mb: 100 });
    for (const g of life.gc)
      rec.afterGc.push({ t: g.min * 60_000, replica: life.replica, pid: life.pid, ...g });
  }
  return rec;
}
const minutes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('soak memory after GC', () => {
  it('measures slopes in MB per minute', () => {
    expect(slopePerMinute([0, 60, 120].map((t, i) => ({ t, y: 100 + 2 * i })))).toBeCloseTo(2);
    expect(slopePerMinute([{ t: 0, y: 1 }])).toBeNaN();
  });

  it('judges each replica life apart, after its own warm-up: a restart is not growth', () => {
    expect(LIFE_WARMUP_MS).toBe(60_000);
    const rec = recorderWith([
      // gw1 dies at minute 5 and comes back smaller; each life grows only while it warms up
      {
        replica: 'gw1',
        pid: 10,
        bornMin: 0,
        gc: minutes(0, 5).map((min) => ({ min, heapMb: min < 1 ? 60 : 80, rssMb: 200 })),
      },
      {
        replica: 'gw1',
        pid: 11,
        bornMin: 5,
        gc: minutes(5, 12).map((min) => ({ min, heapMb: 60, rssMb: min < 6 ? 100 : 150 })),
      },
      {
        replica: 'gw2',
        pid: 20,
        bornMin: 0,
        gc: minutes(1, 12).map((min) => ({ min, heapMb: 70, rssMb: 190 })),
      },
    ]);
    const f = afterGcFigures(rec);
    expect(f.judged).toBe(3);
    expect(f.growing).toEqual([]);
    expect(f.worstHeapSlope).toBeCloseTo(0);
    expect(f.worstRssSlope).toBeCloseTo(0);
    expect(f.rows).toHaveLength(3);
  });

  it('reports the steepest growth, and leaves out lives too short to judge', () => {
    const rec = recorderWith([
      // growing 3 MB/min of RSS after GC: not flat
      {
        replica: 'gw1',
        pid: 10,
        bornMin: 0,
        gc: minutes(2, 6).map((min) => ({ min, heapMb: 50 + min, rssMb: 150 + 3 * min })),
      },
      // three samples after its warm-up only: shown, not judged
      {
        replica: 'gw2',
        pid: 21,
        bornMin: 3,
        gc: minutes(4, 6).map((min) => ({ min, heapMb: 50 + 100 * min, rssMb: 150 })),
      },
    ]);
    const f = afterGcFigures(rec);
    expect(f.judged).toBe(1);
    expect(f.growing).toEqual(['gw1 (pid 10)']);
    expect(f.worstRssSlope).toBeCloseTo(3);
    expect(f.worstRssSlope).toBeGreaterThan(FLAT_MB_PER_MIN);
    expect(f.worstHeapSlope).toBeCloseTo(1);
    expect(f.rows.map((r) => r.split(' |')[0])).toEqual(['| gw1 (pid 10)', '| gw2 (pid 21)']);
  });

  it('judges nothing when the run is too short', () => {
    const f = afterGcFigures(
      recorderWith([{ replica: 'gw1', pid: 1, bornMin: 0, gc: [{ min: 1, heapMb: 1, rssMb: 1 }] }]),
    );
    expect(f.judged).toBe(0);
    expect(f.worstHeapSlope).toBeNaN();
  });

  it('calls a steep slope over a short span noise when the growth stays under the noise floor', () => {
    expect(NOISE_MB).toBe(2);
    const f = afterGcFigures(
      recorderWith([
        // +0.6 MB/min for 3 minutes: 1.8 MB in all, within the jitter of RSS after GC
        {
          replica: 'gw1',
          pid: 1,
          bornMin: 0,
          gc: minutes(1, 4).map((min) => ({ min, heapMb: 50, rssMb: 140 + 0.6 * min })),
        },
        // +1 MB/min for 5 minutes: 5 MB, growth
        {
          replica: 'gw2',
          pid: 2,
          bornMin: 0,
          gc: minutes(1, 6).map((min) => ({ min, heapMb: 50 + min, rssMb: 140 })),
        },
      ]),
    );
    expect(f.judged).toBe(2);
    expect(f.worstRssSlope).toBeGreaterThan(FLAT_MB_PER_MIN);
    expect(f.growing).toEqual(['gw2 (pid 2)']);
  });
});
