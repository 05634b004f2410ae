import { toolFailure, withCallSignal, withSpan } from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { META_TOOL_NAME } from '@app/meta-tool';
import { CallAbandoned, LimitError } from './limits';
import type { Limits } from './limits';
import { currentRequest, requestSignal } from './request-context';
import type { Protocol, RequestRecorder } from './record/request-recorder';

export interface CallRequest {
  principal: Principal;
  name: string;
  args: unknown;
  protocol: Protocol;
}

/**
 * One tool call through the limits (rates, tenant concurrency, meta_tool proposals), in a
 * `tool.call` span with tenant and tool (never the arguments), counted by outcome code.
 * Throws LimitError. A limit refusal a fast lane met is kept on the request so the route
 * it falls through to refuses again without counting it twice.
 */
export async function limitedCall(
  limits: Limits,
  recorder: RequestRecorder,
  { principal, name, args, protocol }: CallRequest,
  run: () => Promise<ToolCallOutcome>,
): Promise<ToolCallOutcome> {
  const ctx = currentRequest();
  if (ctx?.refusal) {
    const refusal = ctx.refusal;
    ctx.refusal = undefined;
    throw refusal;
  }
  if (ctx) {
    ctx.kind = 'call';
    ctx.tool = name;
  }
  let code = 'INTERNAL';
  // the client going away gives the call up, queued or running (the executor reads the signal)
  const signal = ctx ? requestSignal(ctx) : undefined;
  const limited = async () => {
    if (name === META_TOOL_NAME && isProposal(args)) await limits.admitProposal(principal);
    let release: () => void;
    try {
      release = await limits.admitCall(principal, signal);
    } catch (err) {
      if (!(err instanceof CallAbandoned)) throw err;
      code = 'REFUSED';
      return toolFailure(name, 'REFUSED', err.message);
    }
    try {
      const outcome = await withCallSignal(signal, run);
      code = outcome.is_error ? outcome.error.code : 'ok';
      return outcome;
    } finally {
      release();
    }
  };
  try {
    // a request span nobody records (no SDK, or not sampled) gets no child span object
    return ctx && !ctx.span.isRecording()
      ? await limited()
      : await withSpan('tool.call', attributes(principal, name, protocol), limited);
  } catch (err) {
    if (err instanceof LimitError && ctx) ctx.refusal = err;
    const coded = (err as { code?: unknown } | null)?.code;
    code = typeof coded === 'string' ? coded : 'INTERNAL';
    throw err;
  } finally {
    if (ctx) ctx.outcome = code;
    recorder.countCall(protocol, code);
  }
}

/** The `tool.call` span's attributes: names only, never the arguments. */
function attributes(principal: Principal, name: string, protocol: Protocol) {
  return {
    'gateway.tenant': principal.tenantId,
    'gateway.tool': name,
    'gateway.protocol': protocol,
  };
}

/** A meta_tool call that proposes code; asking about a proposal (`{proposal_id}`) is free. */
function isProposal(args: unknown): boolean {
  return typeof args === 'object' && args !== null && 'code' in args;
}
