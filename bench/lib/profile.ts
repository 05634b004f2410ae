import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './settings';

/** The parts of a V8 .cpuprofile this reads. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  ms: number;
  /** of the non-idle samples */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  busyMs: number;
  functions: ProfileEntry[];
  packages: ProfileEntry[];
  /** the app's own functions (dist/apps, dist/libs, dist/db) by inclusive time */
  appInclusive: ProfileEntry[];
}

const IDLE = new Set(['(idle)', '(program)']);

function where(url: string): string {
  if (!url) return '';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('node_modules/');
  if (nm !== -1) return file.slice(nm + 'node_modules/'.length);
  if (file.startsWith(ROOT)) return path.relative(ROOT, file);
  return file;
}

/** Which package (or app directory) a frame belongs to. */
function owner(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const w = where(url);
  if (url.startsWith('node:')) return 'node core';
  if (w.startsWith('@')) return w.split('/').slice(0, 2).join('/');
  if (url.includes('node_modules/')) return w.split('/')[0];
  const parts = w.split('/');
  // dist/libs/registry/src/x.js -> libs/registry; dist/apps/gateway/src/x -> apps/gateway
  return parts[0] === 'dist' ? parts.slice(1, 3).join('/') : parts.slice(0, 2).join('/');
}

/** Self time per function and per package, largest first. */
export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let total = 0;
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url } = node.callFrame;
    total += us;
    const fn = functionName || '(anonymous)';
    if (IDLE.has(fn)) continue;
    busy += us;
    const key = frameKey(node.callFrame);
    functions.set(key, (functions.get(key) ?? 0) + us);
    const pkg = owner(url, fn);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  // Inclusive time of app functions: each sample counts once for every distinct app frame
  // on its stack.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (!frame || !isAppFrame(frame.url)) continue;
      seen.add(frameKey(frame));
    }
    for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
  const rank = (m: Map<string, number>): ProfileEntry[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return {
    totalMs: total / 1000,
    busyMs: busy / 1000,
    functions: rank(functions),
    packages: rank(packages),
    appInclusive: rank(inclusive),
  };
}

function frameKey(frame: { functionName: string; url: string; lineNumber: number }): string {
  const fn = frame.functionName || '(anonymous)';
  return frame.url ? `${fn} ${where(frame.url)}:${frame.lineNumber + 1}` : fn;
}

function isAppFrame(url: string): boolean {
  return url.includes(`${ROOT}/dist/`) && !url.includes('node_modules');
}

/** A markdown section: what was profiled, then top self time by function and by package. */
export function profileMarkdown(title: string, workload: string, file: string): string {
  const s = summarizeProfile(file);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `#### Profile: ${title}`,
    '',
    `${workload} Profile: \`${path.relative(ROOT, file)}\` (${(s.totalMs / 1000).toFixed(1)} s sampled, ${(s.busyMs / 1000).toFixed(1)} s not idle; shares are of the not-idle samples). V8 samples wall-clock time: when the process is descheduled (2 cores shared with the load generator and Postgres; a loopback write wakes the reader) the sample lands in the running function, which can inflate native I/O calls such as \`writev\`; where the tables above show CPU/req (from /proc), that is the CPU-time measure.`,
    '',
    '| self time by package / app dir | ms | share |',
    '| --- | ---: | ---: |',
    ...s.packages.slice(0, 10).map((p) => `| ${p.name} | ${p.ms.toFixed(0)} | ${pct(p.share)} |`),
    '',
    '| top functions by self time | ms | share |',
    '| --- | ---: | ---: |',
    ...s.functions.map((f) => `| \`${cell(f.name)}\` | ${f.ms.toFixed(0)} | ${pct(f.share)} |`),
    '',
    '| app functions by inclusive time | ms | share |',
    '| --- | ---: | ---: |',
    ...s.appInclusive
      .slice(0, 10)
      .map((f) => `| \`${cell(f.name)}\` | ${f.ms.toFixed(0)} | ${pct(f.share)} |`),
    '',
  ];
  return lines.join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
