import type { FastifyInstance } from 'fastify';
import { carriesBody } from './body-gate';

/**
 * A request that carries no body is read as having none, whatever its `Content-Type` says.
 * Many HTTP clients send `Content-Type: application/json` on every request (the official
 * Python MCP SDK closes a session with such a `DELETE /mcp`); Fastify would refuse that
 * empty JSON body with "Body cannot be empty" before a route that takes no body runs. A
 * route that needs a body still refuses its absence, with its own message.
 */
export function installEmptyBodyRule(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!carriesBody(request.raw)) delete request.headers['content-type'];
    done();
  });
}
