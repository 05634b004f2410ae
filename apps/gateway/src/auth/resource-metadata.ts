import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayConfig } from '../config/gateway.config';
import type { AuthError } from './token-verifier';

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The gateway's public origin: PUBLIC_URL, else the request's Host (loopback default). */
export function publicBaseUrl(config: GatewayConfig, headers: IncomingHttpHeaders): string {
  if (config.publicUrl) return config.publicUrl;
  const host =
    typeof headers.host === 'string' && /^[A-Za-z0-9.:[\]-]+$/.test(headers.host)
      ? headers.host
      : `${config.host}:${config.port}`;
  return `http://${host}`;
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
