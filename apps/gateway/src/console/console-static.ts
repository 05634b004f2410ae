import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorBody, httpStatus } from '../errors/http-errors';

/**
 * The console's pages may load code, styles, images and data only from this origin: no
 * inline script or style, no third-party origin, no framing. Tokens travel in the URL
 * fragment (never sent) and then only in Authorization headers to this origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite names every built asset by its content hash: it never changes under its name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('x-frame-options', 'DENY');
}

/**
 * Serves the built console (`npm run build` writes it to CONSOLE_DIR) at /console/ with
 * `@fastify/static`. When it was not built, /console answers a coded 503 saying how to build it.
 */
export async function registerConsole(
  app: NestFastifyApplication,
  directory: string,
): Promise<{ built: boolean; root: string }> {
  const root = path.resolve(directory);
  const fastify = app.getHttpAdapter().getInstance();
  const built = existsSync(path.join(root, 'index.html'));
  fastify.get('/console', (_request, reply) => {
    void secure(reply).redirect('/console/', 302);
  });
  if (!built) {
    notBuilt(fastify, root);
    return { built, root };
  }
  await app.register((scope: FastifyInstance) => serveStatic(scope, root));
  return { built, root };
}

/** /console/* answers a coded 503 saying how to build the console. */
function notBuilt(fastify: FastifyInstance, root: string): void {
  fastify.get('/console/*', (_request, reply) => {
    void secure(reply)
      .status(httpStatus('CONSOLE_NOT_BUILT'))
      .header('content-type', 'application/json; charset=utf-8')
      .send(
        errorBody(
          'CONSOLE_NOT_BUILT',
          `the admin console is not built (no ${path.join(root, 'index.html')}); run npm run build`,
        ),
      );
  });
}

/** The built files, assets immutable, the page revalidated; send's refusals coded. */
async function serveStatic(scope: FastifyInstance, root: string): Promise<void> {
  // send's refusals (a path that climbs out, a dotfile) are answered here, coded, not as 500s
  scope.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    const [code, message] =
      error.statusCode && error.statusCode < 500
        ? (['NOT_FOUND', 'no such console file'] as const)
        : (['INTERNAL', 'the console file could not be sent'] as const);
    void secure(reply)
      .status(httpStatus(code))
      .header('content-type', 'application/json; charset=utf-8')
      .send(errorBody(code, message));
  });
  await scope.register(fastifyStatic, {
    root,
    prefix: '/console/',
    decorateReply: false,
    index: ['index.html'],
    cacheControl: false,
    dotfiles: 'deny',
    setHeaders: (reply: FastifyReply, file: string) => {
      secure(reply).header(
        'cache-control',
        path.relative(root, file).startsWith(`assets${path.sep}`) ? IMMUTABLE : 'no-cache',
      );
    },
  });
}
