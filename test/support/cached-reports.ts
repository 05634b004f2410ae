/**
 * Reports for the result cache's tests (issue #41). Each reads `clock_timestamp()` next to its
 * rows: a value Postgres makes anew at every execution, so an answer with the same `read_at`
 * was not read again (the proof comes from the database side).
 */

/** shared by every user of the tenant who may call it */
export const CACHED_CUSTOMER = {
  name: 'Cached customer',
  description: 'One customer by id, with the time the row was read.',
  sql_template:
    'SELECT c.id AS customer_id, c.name, clock_timestamp()::text AS read_at FROM customers c WHERE c.id = :customer_id',
  category: 'sales',
  cache_ttl_seconds: 600,
  filters: [{ name: 'customer_id', type: 'integer', description: 'customer id', required: true }],
  fields: [
    { name: 'customer_id', type: 'integer', description: 'customer id' },
    { name: 'name', type: 'string', description: 'customer name' },
    { name: 'read_at', type: 'string', description: 'when the row was read' },
  ],
};

/** bound to the caller's identity: never shared between users */
export const WHO_AM_I = {
  name: 'Who am I',
  description: 'The caller, as the database was told, and when.',
  sql_template:
    'SELECT :user_id AS who, clock_timestamp()::text AS read_at FROM customers c WHERE c.id = 1',
  category: 'sales',
  cache_ttl_seconds: 600,
  filters: [],
  fields: [
    { name: 'who', type: 'string', description: 'the caller' },
    { name: 'read_at', type: 'string', description: 'when the row was read' },
  ],
};
