import { Inject, Injectable } from '@nestjs/common';
import { gatewayConfig } from '../../config/gateway.config';
import type { GatewayConfig } from '../../config/gateway.config';
import { AsHotPath } from '../../http/hot-path';
import type { HotAnswer, HotPath, HotRequest } from '../../http/hot-path';
import { requestedContext } from '../../pipeline/business-context';
import { RequestPipeline } from '../../pipeline/request-pipeline';
import { McpServerFactory } from '../shared/mcp-server.factory';
import { mcpEra } from './mcp-era';
import { listFrame } from '../shared/mcp-wire';

/**
 * POST /mcp `tools/list` of revision 2026-07-28 answered from memory before Nest, as the 2025
 * session list has its own lane (McpListHotPath): the same era and header checks as the route
 * (`mcpEra`, SDK v2's classifier), a token this instance verified, no `Origin` header (the
 * route's origin check has nothing to judge then), and the caller's list already cached.
 * The answer is the route's byte for byte. Anything else goes to McpController.
 */
@AsHotPath()
@Injectable()
export class McpStatelessListHotPath implements HotPath {
  readonly method = 'POST';
  readonly url = '/mcp';

  constructor(
    private readonly pipeline: RequestPipeline,
    private readonly servers: McpServerFactory,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
  ) {}

  answer(request: HotRequest): HotAnswer | undefined {
    const { headers, body } = request;
    if (headers['mcp-session-id'] !== undefined || headers.origin !== undefined) return undefined;
    if ((body as { method?: unknown } | undefined)?.method !== 'tools/list') return undefined;
    const era = mcpEra('POST', headers, body);
    if (era.kind !== 'modern') return undefined;
    const principal = this.pipeline.cachedPrincipal(headers.authorization);
    if (!principal) return undefined;
    const listed = this.servers.cachedList({ principal, context: requestedContext(request) });
    if (!listed) return undefined;
    this.pipeline.noteList('mcp', true);
    return {
      headers: { 'content-type': 'application/json' },
      body: listFrame(era.request.id, listed.body, this.config.mcp.listTtlMs),
    };
  }
}
