import type { SandboxContract } from './sandbox-types';

/** The shape of every message a child may send; anything else is a fault of that child. */
export type ChildMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'host'; job: number; id: number; op: 'query' | 'report'; a: string; b: string }
  | { type: 'log'; job: number; level: string; text: string }
  | { type: 'contract'; job: number; contract: string }
  | { type: 'done'; job: number; called: boolean; result: string; recycle?: boolean }
  | { type: 'failed'; job: number; stage: string; message: string; recycle?: boolean };

const WORKER_STAGES = new Set(['import', 'contract', 'run', 'crash', 'cpu', 'memory', 'output']);

export function childMessage(raw: unknown): ChildMessage | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const m = raw as Record<string, unknown>;
  const isNum = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
  const isStr = (v: unknown) => typeof v === 'string';
  const recycle = m.recycle === undefined || typeof m.recycle === 'boolean';
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'fatal':
      return isStr(m.message) ? (m as ChildMessage) : undefined;
    case 'host':
      return isNum(m.job) &&
        isNum(m.id) &&
        (m.op === 'query' || m.op === 'report') &&
        isStr(m.a) &&
        isStr(m.b)
        ? (m as ChildMessage)
        : undefined;
    case 'log':
      return isNum(m.job) && isStr(m.level) && isStr(m.text) ? (m as ChildMessage) : undefined;
    case 'contract':
      return isNum(m.job) && isStr(m.contract) ? (m as ChildMessage) : undefined;
    case 'done':
      return isNum(m.job) && typeof m.called === 'boolean' && isStr(m.result) && recycle
        ? (m as ChildMessage)
        : undefined;
    case 'failed':
      return isNum(m.job) &&
        isStr(m.stage) &&
        WORKER_STAGES.has(m.stage as string) &&
        isStr(m.message) &&
        recycle
        ? (m as ChildMessage)
        : undefined;
    default:
      return undefined;
  }
}

/** Parses the contract JSON the engine produced, by shape. */
export function parseContract(text: string): SandboxContract | undefined {
  try {
    const c = JSON.parse(text) as Record<string, unknown>;
    if (!c || typeof c !== 'object' || !Array.isArray(c.problems)) return undefined;
    if (!c.problems.every((p) => typeof p === 'string')) return undefined;
    if (c.schema !== null && c.schema !== undefined && typeof c.schema !== 'string')
      return undefined;
    return {
      problems: c.problems as string[],
      name: c.name,
      description: c.description,
      schema: (c.schema as string | null | undefined) ?? null,
      run: c.run === true,
    };
  } catch {
    return undefined;
  }
}
