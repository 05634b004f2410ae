import { Injectable, Logger } from '@nestjs/common';
import type { Proposal } from '../store/proposal.repository';
import type { Decision, DecisionEvent } from './proposal-outcomes';

/**
 * Who hears of a decision on this instance: the MCP sessions (notifications) and the
 * decision feed (which relays to other instances and back). A listener that throws is
 * logged and never stops the others.
 */
@Injectable()
export class DecisionEvents {
  private readonly logger = new Logger('MetaTool');
  private readonly listeners = new Set<(event: DecisionEvent) => void>();

  /** Subscribes to decisions; returns the unsubscribe function. */
  onDecision(listener: (event: DecisionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A decision made here, told to the proposer's listeners. */
  announce(proposal: Proposal, decision: Decision): void {
    this.relay({ tenantId: proposal.tenantId, proposer: proposal.proposedBy, decision });
  }

  /** Tells this instance's listeners about a decision (made here, or relayed from another). */
  relay(event: DecisionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.warn(`a decision listener failed: ${String(err)}`);
      }
    }
  }
}
