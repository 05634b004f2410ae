import { CallActivity, CatalogService, ReportExecutor } from '@app/registry';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { TokenVerifier } from '../auth/token-verifier';
import type { HotAnswer, HotPath, HotRequest } from '../http/hot-paths';
import { parseCallRequest } from './call-body';

/**
 * POST /v1/tools/{name}/call for a report tool when everything but the query is in memory: a
 * token this instance verified, a catalog the LISTEN connection vouches for, the tool in the
 * caller's own visible set. It runs the same executor as ToolsController.call and sends the
 * same bytes; anything else (a new token, an unknown or forbidden tool, a built-in or
 * generated tool, a cold catalog) goes on to the controller, refusals included.
 *
 * Kept small and self-contained so it can sit behind the shared request pipeline (#16).
 */
@Injectable()
export class ToolCallHotPath implements HotPath {
  readonly method = 'POST';
  readonly url = '/v1/tools/:name/call';

  constructor(
    private readonly verifier: TokenVerifier,
    private readonly catalog: CatalogService,
    private readonly executor: ReportExecutor,
    @Optional() @Inject(CallActivity) private readonly activity: CallActivity | null = null,
  ) {}

  answer(request: HotRequest): Promise<HotAnswer> | undefined {
    const principal = this.verifier.cached(request.headers.authorization);
    const name = request.params?.name;
    if (!principal || name === undefined) return undefined;
    const resolved = this.catalog.cachedResolve(principal, name);
    if (!resolved || resolved.tool.kind !== 'report') return undefined;
    // the controller answers every body it would refuse, and the compact encoding
    const parsed = parseCallRequest(request.body, request.query.encoding);
    if (!parsed.ok || !parsed.value.arguments.ok || parsed.value.encoding !== 'objects')
      return undefined;
    return this.executor
      .call(resolved.catalog, resolved.tool.report, parsed.value.arguments.value, principal)
      .then((outcome) => {
        this.activity?.record(principal.tenantId, outcome.is_error);
        return outcome;
      })
      .then((outcome) => ({
        headers: { 'content-type': CALL_CONTENT_TYPE },
        body: [Buffer.from(JSON.stringify(outcome))],
      }));
  }
}

/** What Fastify sends for the controller's object answer. */
export const CALL_CONTENT_TYPE = 'application/json; charset=utf-8';
