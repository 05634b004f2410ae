import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A session's tool list: the shared list body (`GET /v1/tools?format=mcp` of the same toolset,
 * L1 and L2 in CatalogService) and a fingerprint that changes when any tool of it does.
 */
export interface ListedTools {
  /** `{"tools":[...]}` as UTF-8 */
  readonly body: Buffer;
  /** sha256 (base64url) of the tools array's JSON */
  readonly fingerprint: string;
}

const TOOLS_OPEN = Buffer.byteLength('{"tools":');
const RESULT_OPEN = Buffer.from('{"result":');
/** one per body held: it lives as long as the body does in the list cache */
const listedByBody = new WeakMap<Buffer, ListedTools>();

export function listedTools(body: Buffer): ListedTools {
  let listed = listedByBody.get(body);
  if (!listed) {
    const tools = body.subarray(TOOLS_OPEN, body.length - 1);
    listed = { body, fingerprint: createHash('sha256').update(tools).digest('base64url') };
    listedByBody.set(body, listed);
  }
  return listed;
}

/** The tools of a list, parsed for the SDK (which serialises them again, to the same bytes). */
export function toolsOf(listed: ListedTools): Tool[] {
  return (JSON.parse(listed.body.toString('utf8')) as { tools: Tool[] }).tools;
}

/**
 * A tools/list response as the SDK serialises it (`{"result":{"tools":[...]},"jsonrpc":"2.0",
 * "id":<id>}`), for answers written without the SDK; pinned against the SDK by hot-paths.e2e.
 */
export function toolsListFrame(listed: ListedTools, id: string | number): Buffer[] {
  return [RESULT_OPEN, listed.body, Buffer.from(`,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`)];
}
