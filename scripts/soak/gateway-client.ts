import { SignJWT } from 'jose';
import type { Who } from './model';

export interface Answer {
  status: number;
  json: unknown;
  by: string;
}

/** The soak's own reports: category sales, a cheap query. */
export function soakReport(description: string): Record<string, string> {
  return {
    name: 'Soak report',
    description,
    sql_template: 'SELECT count(*) AS n FROM orders',
    category: 'sales',
  };
}

/** The tool names of a list answer, whatever the format. */
export function namesOf(format: string, json: unknown): string[] {
  const tools = (json as { tools?: Array<Record<string, unknown>> }).tools ?? [];
  return tools.map((t) =>
    format === 'openai' ? (t.function as { name: string }).name : (t.name as string),
  );
}

/** HTTP to the load balancer as one of the soak's users (tokens signed once per user). */
export class GatewayClient {
  private readonly key: Uint8Array;
  private readonly tokens = new Map<string, string>();

  constructor(
    readonly base: string,
    secret: string,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async token(w: Who): Promise<string> {
    const k = `${w.tenant}/${w.user}`;
    if (!this.tokens.has(k)) {
      this.tokens.set(
        k,
        await new SignJWT({ ...(w.claims ?? {}), tenant: w.tenant, roles: w.roles })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(w.user)
          .setExpirationTime('3h')
          .sign(this.key),
      );
    }
    return this.tokens.get(k)!;
  }

  async http(w: Who, method: string, url: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${this.base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${await this.token(w)}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, json, by: res.headers.get('x-served-by') ?? '?' };
  }

  /** GET /v1/tools in a format and context. */
  list(w: Who, format: string, context: string): Promise<Answer> {
    return this.http(w, 'GET', `/v1/tools?format=${format}&context=${context}`);
  }
}
