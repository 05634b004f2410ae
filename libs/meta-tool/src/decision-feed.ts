import { randomUUID } from 'node:crypto';
import { notify } from '@app/db';
import type { DatabaseHandle, Unlisten } from '@app/db';
import { CatalogStore, DATABASE } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { decisionOf, MetaToolService } from './meta-tool.service';
import type { DecisionEvent } from './meta-tool.service';

/** The Postgres channel decisions travel on between the instances of one database. */
export const DECISION_CHANNEL = 'gateway_meta_tool_decision';

/** What one instance tells the others: who to look up, never the outcome itself. */
interface DecisionNotice {
  origin: string;
  tenant: string;
  proposer: string;
  proposal: string;
}

export function decisionNotice(payload: string): DecisionNotice | undefined {
  try {
    const n = JSON.parse(payload) as Record<string, unknown>;
    const fields = ['origin', 'tenant', 'proposer', 'proposal'] as const;
    if (!n || typeof n !== 'object' || fields.some((f) => typeof n[f] !== 'string'))
      return undefined;
    return n as unknown as DecisionNotice;
  } catch {
    return undefined;
  }
}

/**
 * Carries proposal decisions to the other gateway instances on the same database, over
 * Postgres LISTEN/NOTIFY (the feed the catalog changes already use), so the proposer's MCP
 * sessions held by any instance hear the outcome. The notice names the proposal only; each
 * receiver reads the decided row, so the outcome comes from one source and a payload is never
 * trusted or too long. Best effort like any notification: while the LISTEN connection is down
 * a decision is not relayed, and `meta_tool {"proposal_id"}` stays the reliable answer.
 */
@Injectable()
export class DecisionFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MetaToolDecisions');
  private readonly origin = randomUUID();
  private unlisten?: Unlisten;
  private unsubscribe: () => void = () => undefined;
  private reconnectTimer?: NodeJS.Timeout;
  private reconnectDelayMs = 100;
  private stopped = false;

  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    private readonly service: MetaToolService,
    private readonly store: CatalogStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.unsubscribe = this.service.onDecision((event) => {
      if (!event.remote) void this.publish(event);
    });
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    clearTimeout(this.reconnectTimer);
    await this.unlisten?.().catch(() => undefined);
  }

  private async publish(event: DecisionEvent): Promise<void> {
    const notice: DecisionNotice = {
      origin: this.origin,
      tenant: event.tenantId,
      proposer: event.proposer,
      proposal: event.decision.proposal_id,
    };
    try {
      await notify(this.database.db, DECISION_CHANNEL, JSON.stringify(notice));
    } catch (err) {
      this.logger.warn(
        `decision on proposal ${notice.proposal} not relayed to other instances: ${message(err)}`,
      );
    }
  }

  /** A decision made on another instance: read the row, then tell this instance's listeners. */
  private async received(payload: string): Promise<void> {
    const notice = decisionNotice(payload);
    if (!notice || notice.origin === this.origin) return;
    try {
      const proposal = await this.service.proposals.find(notice.tenant, notice.proposal);
      if (!proposal || proposal.proposedBy !== notice.proposer) return;
      const decision = decisionOf(proposal);
      if (!decision) return;
      // the tool list the notification invites must already include the new tool here
      if (decision.status === 'installed') this.store.invalidate(notice.tenant);
      this.service.relay({
        tenantId: notice.tenant,
        proposer: notice.proposer,
        decision,
        remote: true,
      });
    } catch (err) {
      this.logger.warn(`decision on proposal ${notice.proposal} not relayed: ${message(err)}`);
    }
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    try {
      this.unlisten = await this.database.listen(
        DECISION_CHANNEL,
        (payload) => void this.received(payload),
        (err) => this.lost(err),
        'gateway-decision-listener',
      );
      this.reconnectDelayMs = 100;
    } catch (err) {
      this.lost(err);
    }
  }

  private lost(err: unknown): void {
    if (this.stopped || this.reconnectTimer) return;
    this.logger.warn(`decision feed connection lost (${message(err)}); reconnecting`);
    void this.unlisten?.().catch(() => undefined);
    this.unlisten = undefined;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 5000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.listen();
    }, delay);
    this.reconnectTimer.unref();
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
