/**
 * The point-lookup baseline: what a platform team would write by hand instead of the gateway.
 * node:http + pg.Pool, one route, the same SQL the gateway renders for order_lookup, rows as
 * JSON. No auth, no argument schema, no read-only transaction: the floor to compare with.
 * Runs as its own process, like the gateway.
 *   DATABASE_URL  POOL_SIZE  PORT
 */
import http from 'node:http';
import pg from 'pg';

const SQL = `SELECT * FROM (
SELECT o.id AS order_id, o.order_date, c.name AS customer_name, o.status, p.name AS product, i.quantity, i.unit_price
FROM orders o
JOIN customers c ON c.id = o.customer_id
JOIN order_items i ON i.order_id = o.id
JOIN products p ON p.id = i.product_id
WHERE o.id = $1::bigint
ORDER BY i.line_no
) AS report_rows LIMIT $2 OFFSET $3`;

// the gateway's value shapes (db/connect/type-parsers.ts): dates as text, numerics as numbers
pg.types.setTypeParser(1082, (v) => v);
pg.types.setTypeParser(1700, (v) => Number(v));
pg.types.setTypeParser(20, (v) => Number(v));

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
  options: '-c search_path=tenant_acme',
});
pool.on('error', () => undefined);

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void (async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          arguments?: { order_id?: number };
        };
        const result = await pool.query(SQL, [body.arguments?.order_id ?? 0, 21, 0]);
        const out = JSON.stringify({ rows: result.rows });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(out);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      }
    })();
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  console.log(`listening ${process.env.PORT}`);
});
