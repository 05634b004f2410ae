import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { GatewayRepository } from './gateway.repository';

/** Calls of one generated tool since the last flush, and the latest error among them. */
export interface CallStats {
  tenantId: string;
  name: string;
  calls: number;
  errors: number;
  lastError?: string;
}

/** gateway.generated_tool_stats: calls and errors per generated tool, added to in batches. */
@Injectable()
export class GeneratedToolStatsRepository extends GatewayRepository {
  /** Adds calls and errors to the tool's statistics (a row is made on the first call). */
  async add(e: CallStats): Promise<void> {
    await sql`
        INSERT INTO gateway.generated_tool_stats AS s (tenant_id, name, calls, errors, last_error, last_error_at)
        VALUES (${e.tenantId}, ${e.name}, ${e.calls}, ${e.errors}, ${e.lastError ?? null},
                ${e.lastError === undefined ? null : sql`now()`})
        ON CONFLICT (tenant_id, name) DO UPDATE SET
          calls = s.calls + EXCLUDED.calls,
          errors = s.errors + EXCLUDED.errors,
          last_error = COALESCE(EXCLUDED.last_error, s.last_error),
          last_error_at = COALESCE(EXCLUDED.last_error_at, s.last_error_at)`.execute(
      this.database.db,
    );
  }
}
