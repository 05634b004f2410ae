/**
 * npm run eval:tune: the fusion weights swept on the TUNING set only (the held-out set is not
 * even loaded). The defaults in libs/selection are chosen from this output.
 */
import { DEFAULT_RANKING } from '@app/selection';
import type { FusionWeights } from '@app/selection';
import { ranker } from './methods';
import { tuningSet } from './sets';

const set = tuningSet();
const grid: FusionWeights[] = [10, 30, 60].flatMap((k) =>
  [0.05, 0.1, 0.2, 0.3, 0.5].map((semantic) => ({ k, semantic })),
);
console.log('| k | semantic weight | tuning r@1 | tuning r@5 |');
console.log('| --- | --- | --- | --- |');
for (const fusion of grid) {
  {
    const { k, semantic } = fusion;
    const rank = ranker(DEFAULT_RANKING, true, { semantic: true, fusion })(set);
    let r1 = 0;
    let r5 = 0;
    for (const q of set.questions) {
      const { ids } = rank(q);
      if (ids.slice(0, 1).some(q.accepts)) r1++;
      if (ids.slice(0, 5).some(q.accepts)) r5++;
    }
    const n = set.questions.length;
    console.log(`| ${k} | ${semantic} | ${(r1 / n).toFixed(3)} | ${(r5 / n).toFixed(3)} |`);
  }
}
