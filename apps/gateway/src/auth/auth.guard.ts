import type { Principal } from '@app/registry';
import { createParamDecorator, Injectable } from '@nestjs/common';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { RequestPipeline } from '../pipeline/request-pipeline';

type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/** Every route behind this guard has a verified principal; anything else is a 401. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly pipeline: RequestPipeline) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    request.principal = await this.pipeline.authenticate(request.headers.authorization);
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal) throw new Error('CurrentPrincipal used on a route without AuthGuard');
    return principal;
  },
);
