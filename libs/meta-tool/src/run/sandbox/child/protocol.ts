import type { SandboxLimits } from '../sandbox-types';

/** A job from the parent: load the tool's module, describe it and, if `call`, run it once. */
export interface RunMessage {
  type: 'run';
  job: number;
  source: string;
  name: string;
  /** the arguments as JSON text */
  args: string;
  /** ctx.user as JSON text */
  user: string;
  call: boolean;
  limits: SandboxLimits;
}

/** The parent's answer to a data call: the value's JSON text, or the error for the tool. */
export type ReplyMessage =
  | { type: 'reply'; job: number; id: number; ok: true; value: string }
  | { type: 'reply'; job: number; id: number; ok: false; error: string };

export type ParentMessage = RunMessage | ReplyMessage;

/** Whether `message` is one the parent sends; anything else is ignored. */
export function valid(message: unknown): message is ParentMessage {
  if (!message || typeof message !== 'object') return false;
  const m = message as Record<string, unknown>;
  if (m.type === 'run')
    return (
      typeof m.job === 'number' &&
      typeof m.source === 'string' &&
      typeof m.name === 'string' &&
      typeof m.args === 'string' &&
      typeof m.user === 'string' &&
      typeof m.call === 'boolean' &&
      !!m.limits &&
      typeof m.limits === 'object'
    );
  if (m.type === 'reply')
    return (
      typeof m.job === 'number' &&
      typeof m.id === 'number' &&
      typeof m.ok === 'boolean' &&
      (m.ok ? typeof m.value === 'string' : typeof m.error === 'string')
    );
  return false;
}
