// A generated tool that reads data: its only way is ctx.query, through the SQL guard and the
// read-only executor of the tenant.
export default {
  name: 'orders_per_status',
  description: 'Number of orders per fulfilment status, optionally only orders on or after a date.',
  schema: {
    type: 'object',
    properties: { since: { type: 'string', format: 'date', description: 'YYYY-MM-DD' } },
    additionalProperties: false,
  },
  async run(args, ctx) {
    const since = args && typeof args.since === 'string' ? args.since : '1900-01-01';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(since)) throw new Error('since must be YYYY-MM-DD');
    const rows = await ctx.query(
      'SELECT status, count(*)::int AS orders FROM orders WHERE order_date >= $1::date GROUP BY status ORDER BY status',
      [since],
    );
    return { since, statuses: rows };
  },
};
