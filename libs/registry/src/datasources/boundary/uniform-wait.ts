import { SourceRefusedError } from './source-connect';

/**
 * `attempt`, given a promise that rejects once `timeoutMs` is over; when it fails for any reason
 * but a refusal by the connector, the failure is thrown only when `timeoutMs` is over, so every
 * failure to reach or log in takes the same time (issue #37). `close` runs either way.
 */
export async function uniformly<T>(
  timeoutMs: number,
  attempt: (timeout: Promise<never>) => Promise<T>,
  close: () => void,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within the connect timeout')), timeoutMs);
  });
  timeout.catch(() => undefined);
  try {
    return await attempt(timeout);
  } catch (err) {
    // a refusal of the address or of the gateway's own server tells nothing of a port
    if (err instanceof SourceRefusedError) throw err;
    const left = deadline - Date.now();
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    throw err;
  } finally {
    clearTimeout(timer);
    close();
  }
}
