import type { FastifyInstance } from 'fastify';

/**
 * PATCH bodies may say what they are, `application/merge-patch+json` (RFC 7396), as well as
 * plain `application/json`: both are read by Fastify's own JSON parser (same limits, same
 * prototype-poisoning refusals).
 */
export function acceptMergePatch(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    fastify.getDefaultJsonParser('error', 'error'),
  );
}
