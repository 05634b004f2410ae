import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { RunningGateway, TokenClaims } from './gateway';

export const author: TokenClaims = { tenant: 'acme', user: 'ada', roles: ['tool_author'] };
/** an author who may also use the sales and inventory reports (their tables, their rows) */
export const analystAuthor: TokenClaims = {
  tenant: 'acme',
  user: 'ada',
  roles: ['tool_author', 'analyst'],
};
export const reviewer: TokenClaims = { tenant: 'acme', user: 'rex', roles: ['tool_reviewer'] };
export const globexReviewer: TokenClaims = {
  tenant: 'globex',
  user: 'gus',
  roles: ['tool_reviewer'],
};

export const example = (file: string) =>
  readFileSync(path.resolve(__dirname, '../../libs/meta-tool/examples', file), 'utf8');

export interface CallBody {
  tool: string;
  is_error: boolean;
  text?: string;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
}

export async function callTool(
  gw: RunningGateway,
  who: TokenClaims,
  name: string,
  args: unknown,
): Promise<{ status: number; body: CallBody }> {
  const res = await gw.request(`/v1/tools/${name}/call`, {
    method: 'POST',
    as: who,
    json: { arguments: args },
  });
  return { status: res.status, body: (await res.json()) as CallBody };
}

export const propose = (
  gw: RunningGateway,
  args: Record<string, unknown>,
  who: TokenClaims = author,
) => callTool(gw, who, 'meta_tool', args);

export async function decide(
  gw: RunningGateway,
  id: string,
  action: 'approve' | 'reject',
  who: TokenClaims = reviewer,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await gw.request(`/v1/admin/meta-tool/proposals/${id}/${action}`, {
    method: 'POST',
    as: who,
    json: {},
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Proposes and approves; returns the approval's decision. */
export async function install(
  gw: RunningGateway,
  args: Record<string, unknown>,
  who: TokenClaims = author,
): Promise<Record<string, unknown>> {
  const proposed = await propose(gw, args, who);
  if (proposed.body.is_error) throw new Error(`proposal refused: ${proposed.body.error?.message}`);
  const decision = await decide(gw, String(proposed.body.result?.proposal_id), 'approve');
  return decision.body;
}

export async function toolNames(gw: RunningGateway, who: TokenClaims): Promise<string[]> {
  const res = await gw.request('/v1/tools', { as: who });
  return ((await res.json()) as { tools: Array<{ function: { name: string } }> }).tools.map(
    (t) => t.function.name,
  );
}

/** Every file in the tenant's generated-tools directory, temp files included. */
export function filesOf(gw: RunningGateway, tenant = 'acme'): string[] {
  const dir = path.join(gw.toolsDir, tenant);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

export async function installedRows(
  gw: RunningGateway,
  tenant = 'acme',
): Promise<Array<{ name: string; sha256: string; approved_by: string }>> {
  const { rows } = await sql<{ name: string; sha256: string; approved_by: string }>`
    SELECT name, sha256, approved_by FROM gateway.generated_tools WHERE tenant_id = ${tenant} ORDER BY name`.execute(
    gw.database.handle.db,
  );
  return rows;
}

/** A minimal valid tool whose run body is `body` (JS statements, `args` and `ctx` in scope). */
export function toolSource(name: string, body: string, extra = ''): string {
  return `${extra}
export default {
  name: '${name}',
  description: 'test tool ${name}',
  schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
  async run(args, ctx) { ${body} },
};
`;
}
