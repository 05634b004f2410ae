import { readFileSync } from 'node:fs';

/** CPU time a process has used so far (from /proc/<pid>/stat), in milliseconds. */
export interface CpuTime {
  userMs: number;
  systemMs: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function cpuTime(pid: number): CpuTime {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which is in parentheses and may contain spaces).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { userMs: Number(fields[11]) * TICK_MS, systemMs: Number(fields[12]) * TICK_MS };
}

/** CPU microseconds per request of a server process over a run, user and system. */
export interface CpuPerRequest {
  userUs: number;
  systemUs: number;
}

export async function measureCpu<T extends { responses: number }>(
  pid: number | undefined,
  run: () => Promise<T>,
): Promise<T & { cpu?: CpuPerRequest }> {
  if (pid === undefined) return run();
  const before = cpuTime(pid);
  const result = await run();
  const after = cpuTime(pid);
  const n = Math.max(1, result.responses);
  return {
    ...result,
    cpu: {
      userUs: ((after.userMs - before.userMs) * 1000) / n,
      systemUs: ((after.systemMs - before.systemMs) * 1000) / n,
    },
  };
}
