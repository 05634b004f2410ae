import type { RunningGateway, TokenClaims } from './gateway';

/** A response a fault may cause: never a 5xx, never a stack trace in the body. */
export async function contained(res: Response): Promise<{ status: number; text: string }> {
  const text = await res.text();
  expect(res.status).toBeLessThan(500);
  expect(text).not.toMatch(/\bat \S+ \(|\.ts:\d+:\d+|\.js:\d+:\d+|node:internal/);
  return { status: res.status, text };
}

/** The tool names a caller is served, asserting the list itself is contained and a 200. */
export async function listedTools(gw: RunningGateway, who: TokenClaims): Promise<string[]> {
  const { status, text } = await contained(await gw.request('/v1/tools', { as: who }));
  expect(status).toBe(200);
  return (JSON.parse(text) as { tools: Array<{ function: { name: string } }> }).tools.map(
    (t) => t.function.name,
  );
}

/** Calls a tool over REST; asserts the answer is contained, returns the parsed body. */
export async function callTool(
  gw: RunningGateway,
  who: TokenClaims,
  name: string,
  args: unknown = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { status, text } = await contained(
    await gw.request(`/v1/tools/${name}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
    }),
  );
  return { status, body: JSON.parse(text) as Record<string, unknown> };
}
