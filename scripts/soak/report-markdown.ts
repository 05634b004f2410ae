import { GRACE_MS, RECOVERY_MS } from './model';
import type { Recorder } from './model';
import { FLAT_MB_PER_MIN, LIFE_WARMUP_MS, NOISE_MB } from './report-data';
import type { Figures } from './report-data';

export interface RunFacts {
  rec: Recorder;
  minutes: number;
  replicas: number;
  finalStale: number;
  seesSoak: string[];
  replicaEnv?: Record<string, Record<string, string>>;
}

function replicaEnvFlags(o: RunFacts): string {
  return Object.entries(o.replicaEnv ?? {})
    .flatMap(([gw, vars]) => Object.entries(vars).map(([k, v]) => ` --replica-env ${gw}:${k}=${v}`))
    .join('');
}

function header(o: RunFacts, f: Figures): string {
  return `# Soak: ${o.minutes} min, ${o.replicas} replicas behind HAProxy, with faults

Produced by \`npm run soak -- --minutes ${o.minutes} --replicas ${o.replicas}${replicaEnvFlags(o)}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC
(2-core machine shared with other work; figures are this run's). Charts are drawn by vega-lite
(rendered to SVG by vega), faults shaded in red.

## Targets

| target | result |
| --- | --- |
| 5xx other than a clear 503 during the Postgres pause: 0 | **${f.unexpected5xx}** (clear 503s, \`DATA_UNAVAILABLE\`/\`DATABASE_UNAVAILABLE\` from a replica or \`SERVICE_UNAVAILABLE\` from HAProxy, in the pause and its recovery window: ${f.expected503}) |
| stale lists after recovery (steady phases, and a final check of every lister × format × context on every replica): 0 | **${f.staleSteady} + ${o.finalStale}** (within a fault or its ${RECOVERY_MS / 1000} s recovery window: ${f.staleDuring}) |
| lists with a wrong demo catalog (any phase): 0 | **${f.wrong}** |
| memory flat after warm-up: heap and RSS after a full GC grow < ${FLAT_MB_PER_MIN} MB/min in every replica life | ${flatVerdict(f)} |
`;
}

function flatVerdict(f: Figures): string {
  const { judged, worstHeapSlope, worstRssSlope } = f.afterGc;
  if (judged === 0)
    return 'not judged: no replica life with 4 samples over 75 s after its warm-up (run longer)';
  const verdict = f.afterGc.growing.length
    ? `**not flat** (${f.afterGc.growing.join(', ')})`
    : '**flat**';
  return `${verdict}: steepest heap ${worstHeapSlope.toFixed(2)}, RSS ${worstRssSlope.toFixed(2)} MB/min over ${judged} replica lives (growth under ${NOISE_MB} MB over a life's span is noise)`;
}

function traffic(o: RunFacts, f: Figures): string {
  const total = o.rec.samples.length;
  return `
## Traffic

${total} requests (${(total / (o.minutes * 60)).toFixed(1)}/s) through the load balancer, 6 concurrent clients plus one
admin writer (every 1.5 s) and a tool author/reviewer pair (a proposal every 20 s; the reviewer deletes the oldest generated tool beyond three); 3 long-lived MCP sessions.

| operation | requests | ok |
| --- | --- | --- |
${[...f.byOp.entries()]
  .sort()
  .map(([op, e]) => `| ${op} | ${e.n} | ${e.ok} |`)
  .join('\n')}

### Answers by class

| class | count |
| --- | --- |
${[...f.byClass.entries()]
  .sort((a, b) => b[1] - a[1])
  .map(([c, n]) => `| ${c} | ${n} |`)
  .join('\n')}

\`ok\`: the answer was right (a list equal to the catalog at some moment between ${GRACE_MS / 1000} s
before the request and its answer; a call without error). \`network:*\`: the client got no HTTP
answer. \`tool_data_unavailable_in_pause\`: a call answered \`DATA_UNAVAILABLE\` while Postgres was
paused.
`;
}

function faultsAndPhases(rec: Recorder, f: Figures): string {
  return `
## Faults

| fault | at (s) | lasted (s) |
| --- | --- | --- |
${rec.phases.map((p) => `| ${p.name} | ${(p.start / 1000).toFixed(1)} | ${((p.end - p.start) / 1000).toFixed(1)} |`).join('\n')}

${rec.notes.map((n) => `- ${n}`).join('\n')}

## Latency per phase (ms)

A fault's phase runs from its start to ${RECOVERY_MS / 1000} s after it ended; a request belongs to the phase
in which it started (a call started just before the Postgres pause that answered
\`DATA_UNAVAILABLE\` is counted in \`steady\`, classed by its overlap with the pause).

| phase | requests | not ok | p50 | p99 |
| --- | --- | --- | --- | --- |
${f.phaseRows.join('\n')}

Example of each failure class:

${[...rec.examples.entries()].map(([c, d]) => `- \`${c}\`: \`${d.replace(/`/g, "'")}\``).join('\n')}

Slowest requests:

| op | phase | at (s) | ms | class |
| --- | --- | --- | --- | --- |
${f.slowest.map((x) => `| ${x.op} | ${x.phase} | ${(x.t / 1000).toFixed(1)} | ${x.ms.toFixed(0)} | ${x.cls} |`).join('\n')}
`;
}

function rssAndCharts(o: RunFacts, f: Figures): string {
  return `
## Memory per replica after warm-up

RSS from \`/proc/<pid>/status\` every 2 s; heap used (V8) and the number of metric series
from the replica's own \`/metrics\` every 10 s. Slopes are least-squares over the last half
of the run, in MB per minute (the killed replica restarted in the first half).

| replica | RSS first third (MB) | RSS last third (MB) | RSS max (MB) | RSS slope, last half (MB/min) | heap first third (MB) | heap last third (MB) | heap slope, last half (MB/min) | metric series |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${f.rssRows.join('\n')}

Heap used and RSS read between collections include garbage V8 has not needed to collect yet,
so they rise with traffic until the next major GC. What a replica holds is measured after a
full GC (\`HeapProfiler.collectGarbage\` through the replica's inspector, which the soak turns
on at 127.0.0.1), every 20 s and once after the traffic; the target is judged on these,
per replica life, after the life's first ${LIFE_WARMUP_MS / 1000} s (a restarted replica warms up too).

| replica life | samples after warm-up | heap after GC (MB) | slope (MB/min) | RSS after GC (MB) | slope (MB/min) | heap total after GC (MB) | external after GC (MB) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${f.afterGc.rows.join('\n')}

## Charts

![throughput](soak/throughput.svg)

![latency](soak/latency.svg)

![rss](soak/rss.svg)

![heap](soak/heap.svg)

Listers and contexts that see the soak's reports (read at start with a probe report):
${o.seesSoak.join(', ')}.
`;
}

/** bench/SOAK.md of a run. */
export function soakMarkdown(o: RunFacts, f: Figures): string {
  return header(o, f) + traffic(o, f) + faultsAndPhases(o.rec, f) + rssAndCharts(o, f);
}
