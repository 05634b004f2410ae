/**
 * `npm run bench:select [-- --seconds N] [--record]`: latency of tool selection over 1,000
 * tools of the evaluation catalog, in process: the select ranking (the work behind POST /v1/tools/select),
 * search_tools, and as the baseline in the same run a plain BM25 query (MiniSearch with
 * stemming, typo tolerance, synonyms and conversation weighting off). Also: a cold index
 * build, an incremental re-sync after one report changed, and the first vocabulary load.
 * Every question of the eval set is asked in turn, for `--seconds` (default 5) per method.
 * The index and vocabularies are built once per catalog version (here: once), never per
 * request; "as the endpoint runs it" adds the caller's visible-set test and the formatting.
 * Issue #31: the same with the signals of the default (word vectors, the follow-up family,
 * a usage history of 2,000 questions), and the RSS the word vectors add. `--record` replaces
 * this bench's section of bench/RESULTS.md (a run on a busy machine says so in the section).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  DEFAULT_FUSION,
  DEFAULT_RANKING,
  DEFAULT_SIGNALS,
  SemanticIndex,
  shippedWordVectors,
  UsageHistory,
  parseConversation,
  reportSearchDoc,
  searchTools,
  selectTools,
  ToolSearchIndex,
} from '@app/selection';
import type { RankingOptions, SearchDoc, SelectionSignals } from '@app/selection';
import { argumentsSchema, formatTool, reportToolName, toolDescription } from '@app/templates';
import type { ReportMetadata, ToolDefinition } from '@app/templates';
import { evalCatalog } from '../eval/tool-selection/catalog';
import { QUESTIONS } from '../eval/tool-selection/questions';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 5;
const TOOLS = 1000;
const loadAtStart = loadavg()[0];
const out: string[] = [];
const log = (line: string): void => {
  out.push(line);
  console.log(line);
};

const metadata: ReportMetadata[] = evalCatalog()
  .slice(0, TOOLS)
  .map((r) => ({
    tenantId: 'bench',
    id: r.id,
    name: r.name,
    description: r.description,
    sqlTemplate: 'SELECT 1',
    category: r.category,
    version: 1,
    filters: r.filters.map((f) => ({ ...f, required: false, defaultValue: null })),
    fields: r.fields,
    synonyms: r.synonyms,
    exampleQuestions: r.exampleQuestions,
  }));
const contexts = new Map(evalCatalog().map((r) => [r.id, [r.context]]));
const docs: SearchDoc[] = metadata.map((m) =>
  reportSearchDoc(reportToolName(m.id), m, contexts.get(m.id)!),
);
const definitions = new Map<string, ToolDefinition>(
  metadata.map((m) => [
    reportToolName(m.id),
    {
      name: reportToolName(m.id),
      description: toolDescription(m),
      inputSchema: argumentsSchema(m.filters),
      readOnly: true,
    },
  ]),
);
const conversations = QUESTIONS.map((q) => parseConversation(q.messages)).filter((c) =>
  c.toolCalls.every((t) => definitions.has(t)),
);
const lastTurns = conversations.map((c) => c.userTurns[c.userTurns.length - 1]);
const everyone = (): boolean => true;
// the endpoint holds the caller's visible set per toolset key: a Set lookup per candidate
const visible = new Set(docs.filter((_, i) => i % 2 === 0).map((d) => d.name));
const halfVisible = (name: string): boolean => visible.has(name);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function measure(
  name: string,
  run: (i: number) => void,
): { name: string; p50: number; p99: number; n: number } {
  for (let i = 0; i < 200; i++) run(i); // warm-up
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const t0 = performance.now();
    run(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { name, p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
}

function build(options: RankingOptions): { index: ToolSearchIndex; ms: number } {
  const t0 = performance.now();
  const index = new ToolSearchIndex(options);
  index.sync(docs);
  return { index, ms: performance.now() - t0 };
}

const gc = (globalThis as { gc?: () => void }).gc;
function memory(): { rss: number; heap: number } {
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
}

const t0 = performance.now();
const full = build(DEFAULT_RANKING);
selectTools(full.index, conversations[0], everyone, 5); // loads the vocabularies once
const firstUse = performance.now() - t0;
const plain = build({
  stemming: false,
  typoTolerance: false,
  businessSynonyms: false,
  wordnet: false,
  countries: false,
  conversation: false,
});

const changed = docs.map((d, i) =>
  i === 500 ? { ...d, description: `${d.description} Changed.`, signature: 'v2' } : d,
);
const t1 = performance.now();
full.index.sync(changed);
const resync = performance.now() - t1;
full.index.sync(docs);

// the signals of the default: word vectors, follow-up family (in DEFAULT_RANKING), history
const beforeVectors = memory();
const tv = performance.now();
const vectors = shippedWordVectors();
const vectorLoad = performance.now() - tv;
const afterTable = memory();
const ts = performance.now();
const semantic = new SemanticIndex(vectors);
semantic.sync(docs);
semantic.search(lastTurns.slice(0, 1), everyone, 5); // builds the tool vectors
const semanticBuild = performance.now() - ts;
const afterIndex = memory();
const names = docs.map((d) => d.name);
const history = new UsageHistory(
  {
    halfLifeDays: DEFAULT_SIGNALS.historyHalfLifeDays,
    maxAgeDays: DEFAULT_SIGNALS.historyMaxAgeDays,
  },
  Array.from({ length: 2000 }, (_, i) => ({
    query: lastTurns[i % lastTurns.length],
    tool: names[(i * 7) % names.length],
    at: Date.now() - (i % 90) * 86_400_000,
  })),
);
const signals: SelectionSignals = {
  semantic,
  history,
  fusion: {
    ...DEFAULT_FUSION,
    semantic: DEFAULT_SIGNALS.vectorWeight,
    history: DEFAULT_SIGNALS.historyWeight,
  },
};
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const plus = (bytes: number): string => `${bytes >= 0 ? '+' : ''}${mb(bytes)}`;

const rows = [
  measure('plain BM25 query (baseline)', (i) =>
    plain.index.search(
      {
        weights: new Map(
          lastTurns[i % lastTurns.length]
            .toLowerCase()
            .split(/[^a-z0-9]+/)
            .filter(Boolean)
            .map((w) => [w, 1]),
        ),
        labels: new Map(),
        toolBoosts: new Map(),
      },
      everyone,
      5,
    ),
  ),
  measure('select (whole conversation, limit 5)', (i) =>
    selectTools(full.index, conversations[i % conversations.length], everyone, 5),
  ),
  measure('select as the endpoint runs it (half the tools visible, 5 tools formatted)', (i) => {
    const sel = selectTools(full.index, conversations[i % conversations.length], halfVisible, 5);
    for (const t of sel.tools) formatTool(definitions.get(t.name)!, 'openai');
  }),
  measure('search_tools (one query, limit 10)', (i) =>
    searchTools(full.index, lastTurns[i % lastTurns.length], everyone, 10),
  ),
  measure('select with the default signals (vectors, follow-up family, history)', (i) =>
    selectTools(full.index, conversations[i % conversations.length], everyone, 5, {
      ...signals,
      now: Date.now(),
    }),
  ),
  measure('select as the endpoint runs it, with the default signals', (i) => {
    const sel = selectTools(full.index, conversations[i % conversations.length], halfVisible, 5, {
      ...signals,
      now: Date.now(),
    });
    for (const t of sel.tools) formatTool(definitions.get(t.name)!, 'openai');
  }),
  measure('search_tools with the default signals', (i) =>
    searchTools(full.index, lastTurns[i % lastTurns.length], everyone, 10, {
      ...signals,
      now: Date.now(),
    }),
  ),
];

const base = rows[0];
const loadAtEnd = loadavg()[0];
const busy = loadAtStart >= 2;
log(
  `tools: ${docs.length}; questions cycled: ${conversations.length}; ${seconds} s per method; node ${process.version}; 1-min load ${loadAtStart.toFixed(2)} -> ${loadAtEnd.toFixed(2)}${busy ? ' (BUSY: load >= 2, figures are not a verdict)' : ''}`,
);
log('');
log('| method | p50 ms | p99 ms | p99 vs baseline | queries |');
log('| --- | --- | --- | --- | --- |');
for (const r of rows)
  log(
    `| ${r.name} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${(r.p99 / base.p99).toFixed(2)}x | ${r.n} |`,
  );
log('');
log(
  `Cold index build (${docs.length} tools): ${full.ms.toFixed(0)} ms (plain: ${plain.ms.toFixed(0)} ms); first use (build + vocabulary load + first select) ${firstUse.toFixed(0)} ms; re-sync after one report changed ${resync.toFixed(2)} ms.`,
);
log(
  `Word vectors: table ${vectors.size} words x ${vectors.dims} dims, ${mb(vectors.bytes)} MB of vectors (file ${mb(readFileSync(join(__dirname, '..', 'libs', 'selection', 'data', 'word-vectors.bin')).length)} MB), read in ${vectorLoad.toFixed(0)} ms; RSS ${plus(afterTable.rss - beforeVectors.rss)} MB for the table (heap+external ${plus(afterTable.heap - beforeVectors.heap)} MB), ${plus(afterIndex.rss - afterTable.rss)} MB for one tenant's semantic index of ${docs.length} tools (built in ${semanticBuild.toFixed(0)} ms)${gc ? '' : ' (no --expose-gc: RSS deltas include garbage)'}.`,
);
const worst = Math.max(...rows.slice(1).map((r) => r.p99));
log(
  `Target p99 <= 5 ms for select over ${docs.length} tools: ${worst <= 5 ? 'met' : 'NOT met'} (worst select/search p99 ${worst.toFixed(3)} ms)${busy ? ' on a busy machine: rerun quietly' : ''}.`,
);

if (process.argv.includes('--record')) {
  const file = join(__dirname, 'RESULTS.md');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf('## Tool selection latency (`npm run bench:select`');
  const end = text.indexOf('\n---\n', start);
  if (start < 0 || end < 0) throw new Error('bench/RESULTS.md has no bench:select section');
  const section = [
    `## Tool selection latency (\`npm run bench:select\`, ${new Date().toISOString().slice(0, 16)} UTC${busy ? ', BUSY machine' : ', quiet machine'})`,
    '',
    `Command: \`node --expose-gc -r tsx/cjs bench/select.ts --seconds ${seconds} --record\` (= \`npm run bench:select -- --record\`).`,
    '',
    ...out,
    '',
  ].join('\n');
  writeFileSync(file, text.slice(0, start) + section + text.slice(end));
  console.log(`recorded in ${file}`);
}
