// eslint-disable-next-line @typescript-eslint/no-require-imports
const porter2 = require('wink-porter2-stemmer') as (word: string) => string;

/** Words that say nothing about which report answers a question. */
const STOP_WORDS = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from ' +
    'further get got had has have having he her here hers him his how i if in into is it its ' +
    'just let me more most my no nor not now of off on once only or other our ours out over ' +
    'own please same she should show so some such than that the their them then there these ' +
    'they this those through to too under until up us very was we were what when where which ' +
    'while who whom why will with would you your give tell see list many much ok okay thing ' +
    'things want need like lets last year years this next each every per vs versus one two ' +
    'now can could break down split'
  ).split(' '),
);

/** Lower-cased words of a text; snake_case and camelCase names are split into their words. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** The index term of a word: its Porter2 stem ("quitting" and "quits" are one term). */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = porter2(word);
    // words of one catalog and its users' questions: a bounded vocabulary in practice
    if (stems.size > 200_000) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}

const stems = new Map<string, string>();

/** Index terms of a text, stop words left out (the same for documents and queries). */
export function terms(text: string, stemming = true): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (isStopWord(word)) continue;
    out.push(stemming ? stem(word) : word);
  }
  return out;
}
