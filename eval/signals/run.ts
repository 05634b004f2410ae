/**
 * npm run eval:signals: recall@1 / recall@5 of plain BM25, today's select and each added
 * signal, on the tuning set and the frozen held-out set in the same run; per kind and per
 * area for the held-out set, and how often the detected context is the answer's area.
 * Deterministic: no randomness, no network, no database.
 */
import { heldOutSet, tuningSet } from './sets';
import type { EvalSet, SetQuestion } from './sets';
import { DEFAULT_RANKING } from '@app/selection';
import { METHODS, ranker, replayed, replayHistory, scored } from './methods';
import type { Ranked } from './methods';

interface Tally {
  r1: number;
  r5: number;
  context: number;
  n: number;
  /** follow-ups whose top 1 is in the family of the report the earlier turn called */
  family: number;
}
const empty = (): Tally => ({ r1: 0, r5: 0, context: 0, n: 0, family: 0 });
const fmt = (x: number, n: number): string => (n === 0 ? '-' : (x / n).toFixed(3));

function score(q: SetQuestion, ranked: Ranked, t: Tally): void {
  t.n++;
  if (q.earlierFamily !== undefined && q.familyOf(ranked.ids[0] ?? '') === q.earlierFamily)
    t.family++;
  if (ranked.ids.slice(0, 1).some(q.accepts)) t.r1++;
  if (ranked.ids.slice(0, 5).some(q.accepts)) t.r5++;
  if (ranked.context === q.area) t.context++;
}

interface SetRun {
  all: Tally;
  byKind: Map<string, Tally>;
  byArea: Map<string, Tally>;
  misses: string[];
}

function run(set: EvalSet, rank: (q: SetQuestion) => Ranked): SetRun {
  const out: SetRun = { all: empty(), byKind: new Map(), byArea: new Map(), misses: [] };
  for (const q of set.questions) {
    const ranked = rank(q);
    score(q, ranked, out.all);
    for (const [key, map] of [
      [q.kind, out.byKind],
      [q.area, out.byArea],
    ] as const) {
      if (!map.has(key)) map.set(key, empty());
      score(q, ranked, map.get(key)!);
    }
    if (!ranked.ids.slice(0, 5).some(q.accepts))
      out.misses.push(`${q.id}: ${ranked.ids.join(', ')}`);
  }
  return out;
}

const sets = [tuningSet(), heldOutSet()];
const [tuning, heldOut] = sets;
console.log(
  `tuning: ${tuning.reports.length} reports, ${tuning.questions.length} questions; held-out: ${heldOut.reports.length} reports, ${heldOut.questions.length} questions (${heldOut.questions.filter((q) => q.kind === 'follow-up').length} follow-ups)\n`,
);
console.log(
  '| method | tuning r@1 | tuning r@5 | held-out r@1 | held-out r@5 | held-out follow-ups r@5 | follow-ups keep family | held-out context |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
const runs: Array<[string, SetRun]> = [];
for (const method of METHODS) {
  const [t, h] = sets.map((s) => run(s, method.build(s)));
  const f = h.byKind.get('follow-up') ?? empty();
  console.log(
    `| ${method.name} | ${fmt(t.all.r1, t.all.n)} | ${fmt(t.all.r5, t.all.n)} | ${fmt(h.all.r1, h.all.n)} | ${fmt(h.all.r5, h.all.n)} | ${fmt(f.r5, f.n)} | ${fmt(f.family, f.n)} | ${fmt(h.all.context, h.all.n)} |`,
  );
  runs.push([method.name, h]);
}

const [lastName, last] = runs[runs.length - 1];
const [, base] = runs[0];
const table = (title: string, pick: (r: SetRun) => Map<string, Tally>): void => {
  console.log(
    `\nHeld-out by ${title} (plain BM25 -> ${lastName}): recall@1, recall@5, detected context\n`,
  );
  console.log(`| ${title} | n | BM25 r@1 / r@5 | r@1 | r@5 | context |`);
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [key, t] of [...pick(last)].sort()) {
    const b = pick(base).get(key) ?? empty();
    console.log(
      `| ${key} | ${t.n} | ${fmt(b.r1, b.n)} / ${fmt(b.r5, b.n)} | ${fmt(t.r1, t.n)} | ${fmt(t.r5, t.n)} | ${fmt(t.context, t.n)} |`,
    );
  }
};
table('kind', (r) => r.byKind);
table('area', (r) => r.byArea);

// usage history: replay the even-numbered questions of a set as the tenant's history, score
// the odd-numbered ones with and without it
console.log(
  '\nUsage history (even-numbered questions replayed as history, one a day; odd-numbered scored):\n',
);
console.log(
  '| method | tuning r@1 | tuning r@5 | held-out r@1 | held-out r@5 | held-out follow-ups r@5 |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [name, withHistory] of [
  ['new default (vectors, follow-up family), no history', false],
  ['new default + usage history', true],
] as const) {
  const cells = sets.flatMap((set) => {
    const half: EvalSet = { ...set, questions: scored(set.questions) };
    const history = withHistory ? replayHistory(set, replayed(set.questions)) : undefined;
    const r = run(half, ranker(DEFAULT_RANKING, true, { semantic: true, history })(set));
    const f = r.byKind.get('follow-up') ?? empty();
    return set.name === 'tuning'
      ? [fmt(r.all.r1, r.all.n), fmt(r.all.r5, r.all.n)]
      : [fmt(r.all.r1, r.all.n), fmt(r.all.r5, r.all.n), fmt(f.r5, f.n)];
  });
  console.log(`| ${name} | ${cells.join(' | ')} |`);
}

// tuning misses may be read while tuning; held-out misses only when asked for by name
if (process.argv.includes('--misses')) {
  const t = run(tuning, METHODS[METHODS.length - 1].build(tuning));
  console.log(`\nTuning-set misses (${lastName}):\n${t.misses.join('\n')}`);
}
if (process.argv.includes('--held-out-misses')) {
  console.log(`\nHeld-out misses (${lastName}; never tune on these):\n${last.misses.join('\n')}`);
}
