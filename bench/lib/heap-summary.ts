/**
 * Summarises a V8 heap snapshot like DevTools' "Summary" view: self size and count by node
 * type and constructor name, largest first (strings grouped by type, not by text).
 *
 *   npx tsx bench/lib/heap-summary.ts FILE.heapsnapshot [top, default 40]
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

function summarise(file: string): Map<string, { count: number; size: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const types = snap.snapshot.meta.node_types[0];
  const groups = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    const name = STRING_TYPES.has(type) ? '' : snap.strings[snap.nodes[i + nameAt]];
    const key = `${type} ${name.slice(0, 60)}`;
    const group = groups.get(key) ?? { count: 0, size: 0 };
    group.count++;
    group.size += snap.nodes[i + sizeAt];
    groups.set(key, group);
  }
  return groups;
}

const [file, top = '40'] = process.argv.slice(2);
if (!file) throw new Error('usage: heap-summary.ts FILE.heapsnapshot [top]');
const rows = [...summarise(file)].sort((a, b) => b[1].size - a[1].size).slice(0, Number(top));
for (const [key, { count, size }] of rows)
  console.log(`${String(size).padStart(11)} ${String(count).padStart(8)}  ${key}`);
