import type { DatabaseHandle, DB } from '@app/db';
import { DATABASE } from '@app/registry';
import { Inject } from '@nestjs/common';
import type { Kysely } from 'kysely';

/** What meta_tool's repositories share: the database, its `gateway` schema, the audit row. */
export abstract class GatewayRepository {
  constructor(@Inject(DATABASE) protected readonly database: DatabaseHandle) {}

  protected get g() {
    return this.database.db.withSchema('gateway');
  }
}

/** Who did what to which subject, and the details. */
export type AuditEntry = [
  actor: string,
  action: string,
  subject: string,
  detail: Record<string, unknown>,
];

/** One audit row, written with the statement's own connection or inside a transaction. */
export async function auditIn(
  db: Kysely<DB>,
  tenantId: string,
  ...[actor, action, subject, detail]: AuditEntry
): Promise<void> {
  await db
    .withSchema('gateway')
    .insertInto('audit_log')
    .values({ tenant_id: tenantId, actor, action, subject, detail: JSON.stringify(detail) })
    .execute();
}
