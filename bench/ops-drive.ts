/**
 * Drives the gateways `bench/ops-hold.ts` printed (its JSON lines in OPS_HOLD_FILE) with the
 * warm list, alternately, ROUNDS rounds of SECONDS s each (rotating order); per round and
 * gateway: req/s, CPU µs per request (user + sys, /proc/<pid>/stat) and context switches
 * per request (/proc/<pid>/status). Prints medians, spread, and each variant's paired
 * difference to the first one. LIST_PATH=<path> drives another GET; DRIVE_BODY=<json> makes
 * it a POST of that body (e.g. LIST_PATH=/v1/tools/query_report_order_lookup/call
 * DRIVE_BODY='{"arguments":{"order_id":4242}}': the point lookup).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { runLoad } from './lib/load';
import { median } from './lib/stats';

interface Held {
  name: string;
  url: string;
  pid: number;
  auth: string;
}

function switches(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const v = /voluntary_ctxt_switches:\s+(\d+)/.exec(status);
  return v ? Number(v[1]) : 0;
}

function ticks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

async function main(): Promise<void> {
  const held = readFileSync(process.env.OPS_HOLD_FILE ?? '', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Held);
  const rounds = Number(process.env.ROUNDS ?? 8);
  const seconds = Number(process.env.SECONDS_PER ?? 3);
  const path = process.env.LIST_PATH ?? '/v1/tools?format=openai';
  const body = process.env.DRIVE_BODY;
  const request = (h: Held) => {
    const headers: Record<string, string> = { authorization: h.auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return {
      url: `${h.url}${path}`,
      method: body === undefined ? ('GET' as const) : ('POST' as const),
      body,
      headers,
    };
  };
  const cpu = new Map<string, number[]>(held.map((h) => [h.name, []]));
  const rps = new Map<string, number[]>(held.map((h) => [h.name, []]));
  const cs = new Map<string, number[]>(held.map((h) => [h.name, []]));
  for (const h of held) await runLoad({ ...request(h), connections: 10, durationSec: 2 });
  for (let r = 0; r < rounds; r++) {
    const order = held.map((_, i) => held[(i + r) % held.length]);
    const line: string[] = [];
    const one = async (h: Held) => {
      const t0 = ticks(h.pid);
      const s0 = switches(h.pid);
      const res = await runLoad({ ...request(h), connections: 10, durationSec: seconds });
      const us = ((ticks(h.pid) - t0) * 10_000) / res.responses;
      cpu.get(h.name)?.push(us);
      rps.get(h.name)?.push(res.rps);
      cs.get(h.name)?.push((switches(h.pid) - s0) / res.responses);
      line.push(`${h.name} ${Math.round(res.rps)} ${us.toFixed(1)}µs`);
    };
    // SIMULTANEOUS=1: every gateway loaded at the same time, so the machine's state (other
    // processes, caches) is the same for all of them; otherwise one after the other
    if (process.env.SIMULTANEOUS === '1') await Promise.all(order.map(one));
    else for (const h of order) await one(h);
    console.log(`round ${r + 1} load ${loadavg()[0].toFixed(1)}: ${line.join('; ')}`);
  }
  const base = held[0].name;
  for (const h of held) {
    const c = cpu.get(h.name) ?? [];
    const paired = c.map((x, i) => x - (cpu.get(base) ?? [])[i]);
    const ratio = (rps.get(h.name) ?? []).map((x, i) => x / (rps.get(base) ?? [])[i]);
    console.log(
      `${h.name}: CPU/req median ${median(c).toFixed(1)} µs (min ${Math.min(...c).toFixed(1)}, max ${Math.max(...c).toFixed(1)}); minus ${base} paired median ${median(paired).toFixed(1)} µs [${paired.map((x) => x.toFixed(1)).join(', ')}]; req/s ${Math.round(median(rps.get(h.name) ?? []))}, ratio ${median(ratio).toFixed(2)}; ctx switches/req ${median(cs.get(h.name) ?? []).toFixed(3)}`,
    );
  }
  // each "<x> on" against "<x> off": the on-only cost of build x, paired per round
  for (const h of held.filter((x) => x.name.endsWith(' on') || x.name === 'on')) {
    const offName = h.name.replace(/on$/, 'off');
    const on = cpu.get(h.name) ?? [];
    const off = cpu.get(offName);
    if (!off) continue;
    const d = on.map((x, i) => x - off[i]);
    const r = (rps.get(h.name) ?? []).map((x, i) => x / (rps.get(offName) ?? [])[i]);
    const sorted = [...d].sort((a, b) => a - b);
    console.log(
      `${h.name} - ${offName}: paired CPU/req median ${median(d).toFixed(1)} µs (quartiles ${sorted[Math.floor(d.length / 4)].toFixed(1)} .. ${sorted[Math.floor((3 * d.length) / 4)].toFixed(1)}); CPU ratio off/on ${(median(off) / median(on)).toFixed(2)}; req/s ratio median ${median(r).toFixed(2)}`,
    );
  }
}

void main();
