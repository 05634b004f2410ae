/** Progress goes to stderr; stdout carries the table and, with --json, the JSON line. */
const started = Date.now();

export function log(message: string): void {
  const t = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${t}s] ${message}\n`);
}
