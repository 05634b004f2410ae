import type { Metrics } from '@app/registry';
import type { DecisionEvent } from '@app/meta-tool';
import type { Logger } from '@nestjs/common';
import type { McpServerFactory } from '../shared/mcp-server.factory';
import { errorMessage } from './mcp-session';
import type { McpSession, SessionHost } from './mcp-session';

/** A tenant's many changes within this window reach a session as one notification. */
const COALESCE_MS = 50;

/**
 * What a session hears without asking: notifications/tools/list_changed when its tool list
 * changed (once, through a compare-and-set of the fingerprint in Redis), and the decisions
 * on its user's proposals.
 */
export class SessionNotices {
  constructor(
    private readonly host: SessionHost,
    private readonly servers: McpServerFactory,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /** A notification stream opened on this replica; returns what to call when it closes. */
  streamOpened(session: McpSession, headersSent: () => boolean): () => void {
    session.streams += 1;
    // check once the stream is registered (the SDK answers its headers then)
    const started = Date.now();
    const check = (): void => {
      if (!this.host.holds(session.id) || session.streams === 0) return;
      if (!headersSent() && Date.now() - started < 2000) {
        setTimeout(check, 10).unref();
        return;
      }
      this.scheduleCheck(session);
    };
    setTimeout(check, 10).unref();
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      session.streams -= 1;
    };
  }

  catalogChanged(sessions: Iterable<McpSession>, tenant: string): void {
    for (const session of sessions) {
      if (tenant !== '*' && session.identity.principal.tenantId !== tenant) continue;
      // Only the replica holding the notification stream announces a change.
      if (session.streams === 0) continue;
      this.scheduleCheck(session);
    }
  }

  /**
   * The proposer's open sessions hear a decision as notifications/message (the same outcome
   * `meta_tool {proposal_id}` answers) and, on install, tools/list_changed. Every instance
   * hears it (DecisionFeed relays decisions made elsewhere); like a catalog change, it is
   * announced only by the instance holding the session's notification stream when sessions
   * are shared through Redis or the decision was made elsewhere, so a session hears it once.
   */
  proposalDecided(sessions: Iterable<McpSession>, event: DecisionEvent): void {
    const owner = `${event.tenantId}\u0000${event.proposer}`;
    for (const session of sessions) {
      if (session.owner !== owner) continue;
      if ((event.remote || this.host.shared?.ready) && session.streams === 0) continue;
      const { decision } = event;
      session.server
        .sendLoggingMessage({
          level: decision.status === 'installed' ? 'info' : 'warning',
          logger: 'meta_tool',
          data: {
            proposal_id: decision.proposal_id,
            name: decision.name,
            status: decision.status,
            message: decision.message,
          },
        })
        .catch(() => undefined);
      if (decision.status === 'installed') {
        session.fingerprint = undefined;
        session.server.sendToolListChanged().catch(() => undefined);
      }
    }
  }

  private scheduleCheck(session: McpSession): void {
    if (session.pendingCheck) return;
    session.pendingCheck = setTimeout(() => {
      session.pendingCheck = undefined;
      void this.notifyIfChanged(session);
    }, COALESCE_MS);
  }

  private async notifyIfChanged(session: McpSession): Promise<void> {
    try {
      const { fingerprint } = await this.servers.list(session.identity);
      const shared = this.host.shared;
      if (fingerprint === session.fingerprint && !shared?.ready) return;
      if (shared?.ready) {
        const changed = await shared.setFingerprint(session.id, fingerprint);
        session.fingerprint = fingerprint;
        if (changed === -1) {
          if (await shared.wasClosed(session.id)) return void this.host.close(session.id);
          await this.host.saveShared(session); // Redis lost it: keep it, with the new fingerprint
        }
        if (changed === 0) return;
      } else {
        session.fingerprint = fingerprint;
      }
      await session.server.sendToolListChanged();
      this.metrics.inc('gateway_mcp_list_changed_total');
    } catch (err) {
      this.logger.warn(
        `could not check session ${session.id} for tool changes: ${errorMessage(err)}`,
      );
    }
  }
}
