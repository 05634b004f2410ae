/**
 * The MySQL-dialect guard's corpus (issue #42): templates it must refuse, each with the reason
 * the refusal must name and why it matters, and templates MySQL users write every day that it
 * must accept. docs/sql-guard.md#mysql-protocol-sources shows it; mysql-guard.spec.ts runs it.
 * The scope: database `shop`, tables orders, customers, products, order_items.
 */
export const MYSQL_CORPUS_SCOPE = {
  database: 'shop',
  tables: ['orders', 'customers', 'products', 'order_items'],
};

export interface Refusal {
  sql: string;
  /** a regex source the refusal must match */
  reason: string;
  why: string;
}

export const MUST_REJECT: Refusal[] = [
  { sql: 'SELECT SLEEP(5)', reason: 'SLEEP', why: 'holds a connection as long as it likes' },
  {
    sql: 'SELECT o.id FROM orders o WHERE sLeEp (1) = 0',
    reason: 'SLEEP',
    why: 'case and a space',
  },
  { sql: 'SELECT BENCHMARK(1000000, MD5(1))', reason: 'BENCHMARK', why: 'burns the CPU' },
  {
    sql: 'select benchmark/**/(100000000, 1) from orders',
    reason: 'BENCHMARK',
    why: 'a comment before the parenthesis',
  },
  {
    sql: "SELECT LOAD_FILE('/etc/passwd')",
    reason: 'LOAD_FILE',
    why: 'reads a file of the server',
  },
  {
    sql: 'SELECT load_file(0x2f6574632f706173737764) FROM orders',
    reason: 'LOAD_FILE',
    why: 'the path as hex',
  },
  {
    sql: "SELECT GET_LOCK('x', 10)",
    reason: 'GET_LOCK',
    why: 'takes a lock other sessions wait on',
  },
  {
    sql: "SELECT id FROM orders WHERE GET_LOCK ('a', 1) = 1",
    reason: 'GET_LOCK',
    why: 'inside WHERE',
  },
  { sql: "SELECT RELEASE_LOCK('x')", reason: 'RELEASE_LOCK', why: 'lock functions' },
  { sql: "SELECT IS_FREE_LOCK('x') FROM orders", reason: 'IS_FREE_LOCK', why: 'lock functions' },
  {
    sql: "SELECT MASTER_POS_WAIT('log', 4)",
    reason: 'MASTER_POS_WAIT',
    why: 'waits on replication',
  },
  {
    sql: "SELECT sys_eval('id')",
    reason: 'SYS_EVAL',
    why: 'a user-defined function that runs a command',
  },
  {
    sql: 'SELECT shop.my_udf(id) FROM orders',
    reason: 'qualified',
    why: 'a user-defined function by its database',
  },
  {
    sql: 'SELECT VERSION()',
    reason: 'VERSION',
    why: 'not in the allowlist: server facts are no report data',
  },
  {
    sql: "SELECT * FROM orders INTO OUTFILE '/tmp/x'",
    reason: 'INTO',
    why: 'writes a file on the server',
  },
  { sql: "SELECT * INTO OUTFILE '/tmp/y' FROM orders", reason: 'INTO', why: 'INTO before FROM' },
  { sql: "SELECT id FROM orders INTO DUMPFILE '/tmp/z'", reason: 'INTO', why: 'DUMPFILE' },
  { sql: 'SELECT id INTO @x FROM orders', reason: 'variable', why: 'INTO a variable' },
  { sql: 'SELECT @@version', reason: 'variable', why: 'a system variable' },
  { sql: 'SELECT id FROM orders WHERE id = @x', reason: 'variable', why: 'a user variable' },
  { sql: 'SELECT @a := 1', reason: 'variable', why: 'an assignment to a variable' },
  {
    sql: 'SELECT id FROM orders WHERE (id := 5) > 0',
    reason: 'assignment',
    why: 'an assignment without @',
  },
  { sql: 'SELECT * FROM orders FOR UPDATE', reason: 'locking', why: 'locks rows' },
  { sql: 'select * from orders for   update', reason: 'locking', why: 'case and spaces' },
  {
    sql: 'SELECT * FROM orders LOCK IN SHARE MODE',
    reason: 'locking|not SQL',
    why: 'shared row locks (node-sql-parser does not parse it: refused, fail closed)',
  },
  {
    sql: 'SELECT /*! SLEEP(1) */ 1 FROM orders',
    reason: 'executable comment',
    why: 'MySQL runs what the comment holds',
  },
  {
    sql: 'SELECT 1 /*!50000 , SLEEP(1) */ FROM orders',
    reason: 'executable comment',
    why: 'a versioned executable comment',
  },
  {
    sql: "SELECT id FROM orders WHERE note = 'x' /*!UNION SELECT user FROM mysql.user*/",
    reason: 'executable comment',
    why: 'a UNION hidden in one',
  },
  {
    sql: 'SELECT /*+ MAX_EXECUTION_TIME(100000) */ id FROM orders',
    reason: 'hint',
    why: 'an optimizer hint',
  },
  {
    sql: 'SELECT * FROM information_schema.tables',
    reason: 'system schema',
    why: 'the catalog of every database',
  },
  { sql: 'SELECT * FROM INFORMATION_SCHEMA.TABLES', reason: 'system schema', why: 'upper case' },
  { sql: 'SELECT * FROM mysql.user', reason: 'system schema', why: 'password hashes' },
  { sql: 'SELECT * FROM `mysql`.`user`', reason: 'system schema', why: 'backticks' },
  {
    sql: 'SELECT * FROM performance_schema.threads',
    reason: 'system schema',
    why: 'other sessions',
  },
  { sql: 'SELECT * FROM sys.processlist', reason: 'system schema', why: 'the sys schema' },
  {
    sql: 'SELECT id FROM orders UNION SELECT user FROM mysql.user',
    reason: 'system schema',
    why: 'in a UNION',
  },
  {
    sql: 'SELECT * FROM other.orders',
    reason: 'another database',
    why: 'a table of another database',
  },
  {
    sql: 'SELECT o.id FROM orders o JOIN hr.salaries s ON s.id = o.id',
    reason: 'another database',
    why: 'in a join',
  },
  { sql: 'SELECT * FROM payroll', reason: 'not in the source', why: 'a table not listed' },
  {
    sql: 'SELECT id FROM orders WHERE id IN (SELECT id FROM payroll)',
    reason: 'not in the source',
    why: 'in a subquery',
  },
  {
    sql: 'WITH p AS (SELECT * FROM payroll) SELECT * FROM p',
    reason: 'not in the source',
    why: 'in a CTE body',
  },
  {
    sql: 'SELECT 1 FROM orders; DROP TABLE orders',
    reason: 'more than one statement',
    why: 'a second statement',
  },
  {
    sql: 'SELECT 1 FROM orders;SELECT 2',
    reason: 'more than one statement',
    why: 'without a space',
  },
  { sql: 'INSERT INTO orders (id) VALUES (1)', reason: 'only SELECT|not SQL', why: 'a write' },
  { sql: 'UPDATE orders SET total = 0', reason: 'only SELECT|not SQL', why: 'a write' },
  { sql: 'DELETE FROM orders', reason: 'only SELECT|not SQL', why: 'a write' },
  { sql: 'DROP TABLE orders', reason: 'only SELECT|not SQL', why: 'DDL' },
  { sql: 'SET @a = 1', reason: 'variable', why: 'session state' },
  { sql: 'DO SLEEP(1)', reason: 'only SELECT|not SQL|SLEEP', why: 'DO runs an expression' },
  {
    sql: 'SELECT id FROM orders WHERE id = ?',
    reason: 'placeholder written by hand',
    why: 'a `?` would take a value no filter declared',
  },
  { sql: 'CALL refresh_orders()', reason: 'only SELECT|not SQL', why: 'a stored procedure' },
  { sql: 'LOCK TABLES orders READ', reason: 'only SELECT|not SQL', why: 'table locks' },
  { sql: 'SELECT FROM WHERE', reason: 'not SQL', why: 'unparsable: refused, never passed on' },
  {
    sql: "SELECT id FROM orders WHERE note = 'it\\'s' AND \\N",
    reason: 'backslash',
    why: 'a backslash outside a string',
  },
  {
    sql: "SELECT id FROM orders WHERE note = 'open",
    reason: 'unterminated',
    why: 'a string that never ends',
  },
];

export const MUST_ACCEPT: string[] = [
  'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.region = :region',
  'WITH big AS (SELECT id, total FROM orders WHERE total > :min) SELECT COUNT(*) AS n FROM big',
  'SELECT id, total, RANK() OVER (ORDER BY total DESC) AS r FROM orders',
  'SELECT id, LAG(total) OVER (PARTITION BY customer_id ORDER BY id) AS prev FROM orders',
  "SELECT id, CASE WHEN total > 100 THEN 'big' ELSE 'small' END AS size FROM orders",
  "SELECT DATE_FORMAT(order_date, '%Y-%m') AS month, SUM(total) AS revenue FROM orders WHERE order_date >= :since GROUP BY month ORDER BY month",
  'SELECT `o`.`id` FROM `orders` AS `o`',
  'SELECT id FROM orders ORDER BY id LIMIT 10, 20',
  'SELECT customer_id, GROUP_CONCAT(id) AS ids FROM orders GROUP BY customer_id',
  "SELECT IF(total > 100, 'big', 'small') AS size FROM orders",
  'SELECT o.id FROM shop.orders o',
  "SELECT id FROM orders WHERE note <> 'a:b #c -- d' AND region = :region",
  '-- leading comment\nSELECT id FROM orders # trailing\nWHERE id = :id /* inline */',
  'SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total > :min)',
  'SELECT id FROM orders;',
  "SELECT id, COALESCE(region, 'none') AS region, DATEDIFF(NOW(), order_date) AS age FROM orders",
  'SELECT id FROM orders WHERE (:region IS NULL OR region = :region)',
  'SELECT CAST(total AS DECIMAL(10,2)) AS t FROM orders',
  'SELECT id FROM orders UNION ALL SELECT id FROM customers',
  'SELECT p.name, SUM(i.quantity * i.unit_price) AS revenue FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY p.name ORDER BY revenue DESC LIMIT 8',
];
