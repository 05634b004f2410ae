import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config/gateway.config';
import type { AuthError } from './token-verifier';

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The local socket a request arrived on (undefined outside a request). */
export type ArrivalSocket = Pick<Socket, 'localAddress' | 'localPort'> | undefined;

/**
 * The gateway's public origin: PUBLIC_URL, else the address the request reached this
 * instance on (the listening socket's own address and port). Never the request's `Host`
 * header: a client chooses that freely, and discovery URLs built from it would send other
 * clients wherever the header pointed.
 */
export function publicBaseUrl(config: GatewayConfig, socket: ArrivalSocket): string {
  if (config.publicUrl) return config.publicUrl;
  const address = socket?.localAddress?.replace(/^::ffff:(?=\d+\.)/, '');
  const port = socket?.localPort ?? config.port;
  return `http://${urlHost(address ?? config.host)}:${port}`;
}

function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '::') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "'")}"`;
}

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 section 3, RFC 9728 section 5.1): MCP
 * clients read `resource_metadata` to find the authorization server, and `invalid_token` with
 * its description to tell the user what is wrong with the token they were given.
 */
export function bearerChallenge(error: AuthError, baseUrl: string): string {
  const parts = [`resource_metadata=${quoted(`${baseUrl}${RESOURCE_METADATA_PATH}`)}`];
  if (error.reason === 'invalid')
    parts.unshift(`error="invalid_token"`, `error_description=${quoted(error.message)}`);
  return `Bearer ${parts.join(', ')}`;
}

/** RFC 9728 protected resource metadata for this gateway. */
export function resourceMetadata(config: GatewayConfig, baseUrl: string): object {
  return {
    resource: baseUrl,
    ...(config.auth.authorizationServers.length > 0
      ? { authorization_servers: config.auth.authorizationServers }
      : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'Report tool gateway',
    resource_documentation: `${baseUrl}/docs`,
    ...(config.auth.jwksUrl ? { resource_signing_alg_values_supported: ['RS256', 'ES256'] } : {}),
  };
}
