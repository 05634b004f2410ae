import { reciprocalRankFusion } from './fusion';

describe('reciprocalRankFusion', () => {
  it('sums weight / (k + rank) over the lists', () => {
    const fused = reciprocalRankFusion(
      [
        { names: ['a', 'b', 'c'], weight: 1 },
        { names: ['c', 'a'], weight: 0.5 },
      ],
      10,
    );
    const score = Object.fromEntries(fused.map((f) => [f.name, f.score]));
    expect(score.a).toBeCloseTo(1 / 11 + 0.5 / 12);
    expect(score.b).toBeCloseTo(1 / 12);
    expect(score.c).toBeCloseTo(1 / 13 + 0.5 / 11);
    expect(fused.map((f) => f.name)).toEqual(['a', 'c', 'b']);
  });

  it('lets a strong second list lift an item the first ranks low', () => {
    const fused = reciprocalRankFusion(
      [
        { names: ['a', 'b', 'c', 'd'], weight: 1 },
        { names: ['d'], weight: 1 },
      ],
      1,
    );
    expect(fused[0].name).toBe('d');
  });

  it('ignores lists of weight 0 and orders ties by name', () => {
    const fused = reciprocalRankFusion(
      [
        { names: ['b'], weight: 1 },
        { names: ['a'], weight: 1 },
        { names: ['z', 'y'], weight: 0 },
      ],
      60,
    );
    expect(fused.map((f) => f.name)).toEqual(['a', 'b']);
  });

  it('fuses nothing into nothing', () => {
    expect(reciprocalRankFusion([], 60)).toEqual([]);
    expect(reciprocalRankFusion([{ names: [], weight: 1 }], 60)).toEqual([]);
  });
});
