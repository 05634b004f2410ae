/** The signed-in token (session storage: gone when the tab closes) and calls to the gateway. */
const KEY = 'gateway-console-token';

export interface Identity {
  token: string;
  tenant: string;
  user: string;
  roles: string[];
  /** epoch seconds, when the token says */
  exp?: number;
}

function decodePart(part: string): unknown {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** Reads (does not verify: the gateway does) who a token says it is, for display. */
export function identityOf(token: string): Identity | undefined {
  const parts = token.trim().split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = decodePart(parts[1]) as {
      tenant?: unknown;
      sub?: unknown;
      roles?: unknown;
      exp?: unknown;
    };
    if (typeof claims.tenant !== 'string' || typeof claims.sub !== 'string') return undefined;
    return {
      token: token.trim(),
      tenant: claims.tenant,
      user: claims.sub,
      roles: Array.isArray(claims.roles) ? claims.roles.map(String) : [],
      exp: typeof claims.exp === 'number' ? claims.exp : undefined,
    };
  } catch {
    return undefined;
  }
}

/** A token in the URL fragment (`#token=...`) wins; it is removed from the address at once. */
export function initialIdentity(): Identity | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    const identity = identityOf(decodeURIComponent(match[1]));
    history.replaceState(null, '', `${location.pathname}#/catalog`);
    if (identity) {
      sessionStorage.setItem(KEY, identity.token);
      return identity;
    }
  }
  const stored = sessionStorage.getItem(KEY);
  return stored ? identityOf(stored) : undefined;
}

export function remember(identity: Identity): void {
  sessionStorage.setItem(KEY, identity.token);
}

export function forget(): void {
  sessionStorage.removeItem(KEY);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

let onUnauthenticated: (message: string) => void = () => undefined;
export function whenUnauthenticated(handler: (message: string) => void): void {
  onUnauthenticated = handler;
}

export async function api<T>(
  identity: Identity,
  path: string,
  init: { method?: string; json?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${identity.token}` };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    signal: init.signal,
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = (
      body as { error?: { code?: string; message?: string; details?: Record<string, unknown> } }
    )?.error;
    const failure = new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? (text || response.statusText),
      error?.details,
    );
    if (response.status === 401) onUnauthenticated(failure.message);
    throw failure;
  }
  return body as T;
}

export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.status} ${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
