import type { DB } from '@app/db';
import type { Kysely } from 'kysely';

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
