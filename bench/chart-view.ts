// What declaring the MCP Apps chart View (#33) costs a tool list: the MCP list body of the
// demo catalog (and of 1,000 report tools) with and without the View's `_meta`, in bytes and
// in time to serialise, measured in one run. A call's result is unchanged by the View (it
// reads the rows from `structuredContent`, which was already there), so a call costs the same.
// Run: npx tsx bench/chart-view.ts
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { DEMO_REPORTS } from '../db/demo/demo-catalog';
import { formatTool, initSqlParser, ReportTool } from '../libs/templates/src';
import type { ReportMetadata } from '../libs/templates/src';

function metadata(i: number, r: (typeof DEMO_REPORTS)[number]): ReportMetadata {
  return {
    tenantId: 'acme',
    id: i === 0 ? r.id : `${r.id}_${i}`,
    name: r.name,
    description: r.description,
    sqlTemplate: r.sql,
    category: r.category,
    filters: r.filters.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
      required: f.required ?? false,
      enumValues: f.enum_values ?? null,
      defaultValue: null,
    })),
    fields: r.fields.map(([name, type, description]) => ({ name, type, description })),
  } as ReportMetadata;
}

function bodies(count: number): { withView: string; without: string } {
  const tools = [];
  for (let i = 0; tools.length < count; i += 1)
    for (const r of DEMO_REPORTS)
      if (tools.length < count) tools.push(new ReportTool(metadata(i, r)));
  const withView = tools.map((t) => formatTool(t.definition, 'mcp'));
  const without = tools.map((t) => formatTool({ ...t.definition, meta: undefined }, 'mcp'));
  return {
    withView: JSON.stringify({ tools: withView }),
    without: JSON.stringify({ tools: without }),
  };
}

function timeStringify(value: unknown, rounds: number): number {
  const start = performance.now();
  for (let i = 0; i < rounds; i += 1) JSON.stringify(value);
  return ((performance.now() - start) / rounds) * 1000;
}

async function main() {
  await initSqlParser();
  const load = os.loadavg()[0].toFixed(1);
  console.log(
    `| tools | list bytes without View | with View | ratio | stringify µs without | with | ratio | load |`,
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const count of [DEMO_REPORTS.length, 1000]) {
    const { withView, without } = bodies(count);
    const rounds = count > 100 ? 50 : 2000;
    const a = JSON.parse(without) as unknown;
    const b = JSON.parse(withView) as unknown;
    timeStringify(a, rounds);
    timeStringify(b, rounds);
    const ta = timeStringify(a, rounds);
    const tb = timeStringify(b, rounds);
    console.log(
      `| ${count} | ${without.length} | ${withView.length} | ${(withView.length / without.length).toFixed(2)}x | ${ta.toFixed(0)} | ${tb.toFixed(0)} | ${(tb / ta).toFixed(2)}x | ${load} -> ${os.loadavg()[0].toFixed(1)} |`,
    );
  }
}

void main();
