/**
 * npm run eval:tune: the fusion weights swept on the TUNING set only (the held-out set is not
 * even loaded). The defaults in libs/selection are chosen from this output.
 */
import { DEFAULT_FUSION, DEFAULT_RANKING, UsageHistory } from '@app/selection';
import type { FusionWeights } from '@app/selection';
import { ranker, replayed, replayRecords, scored } from './methods';
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

// usage history, by the replay protocol of run.ts, on the tuning set only
console.log('\n| history weight | min similarity | tuning r@1 | tuning r@5 (odd half) |');
console.log('| --- | --- | --- | --- |');
const half = { ...set, questions: scored(set.questions) };
for (const minSimilarity of [0.3, 0.5, 0.7, 0.85])
  for (const history of [0, 0.1, 0.2, 0.3, 0.5, 1]) {
    const past = new UsageHistory(
      { halfLifeDays: 30, maxAgeDays: 180, minSimilarity },
      replayRecords(set, replayed(set.questions)),
    );
    const rank = ranker(DEFAULT_RANKING, true, {
      semantic: true,
      history: past,
      fusion: { ...DEFAULT_FUSION, history },
    })(set);
    let r1 = 0;
    let r5 = 0;
    for (const q of half.questions) {
      const { ids } = rank(q);
      if (ids.slice(0, 1).some(q.accepts)) r1++;
      if (ids.slice(0, 5).some(q.accepts)) r5++;
    }
    const n = half.questions.length;
    console.log(
      `| ${history} | ${minSimilarity} | ${(r1 / n).toFixed(3)} | ${(r5 / n).toFixed(3)} |`,
    );
  }

// follow-ups: the boost for the family of the tool called last, on the tuning set only
console.log('\n| follow-up family boost | tuning r@1 | tuning r@5 | tuning follow-ups r@1 | r@5 |');
console.log('| --- | --- | --- | --- | --- |');
for (const followUpFamily of [1, 1.1, 1.2, 1.3, 1.5, 2]) {
  const rank = ranker({ ...DEFAULT_RANKING, followUpFamily }, true, { semantic: true })(set);
  const t = { r1: 0, r5: 0, f1: 0, f5: 0, nf: 0 };
  for (const q of set.questions) {
    const { ids } = rank(q);
    const r1 = ids.slice(0, 1).some(q.accepts);
    const r5 = ids.slice(0, 5).some(q.accepts);
    t.r1 += Number(r1);
    t.r5 += Number(r5);
    if (q.kind === 'follow-up') {
      t.nf++;
      t.f1 += Number(r1);
      t.f5 += Number(r5);
    }
  }
  const n = set.questions.length;
  const f = (x: number, d: number) => (x / d).toFixed(3);
  console.log(
    `| ${followUpFamily} | ${f(t.r1, n)} | ${f(t.r5, n)} | ${f(t.f1, t.nf)} | ${f(t.f5, t.nf)} |`,
  );
}
