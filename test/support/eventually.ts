/**
 * Polls until `check` passes or the deadline is reached; the last failure is rethrown.
 * For state that changes asynchronously (a NOTIFY arriving), never a fixed sleep.
 */
export async function eventually<T>(
  check: () => Promise<T>,
  { timeoutMs = 5000, intervalMs = 20 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
