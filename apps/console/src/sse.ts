import { createParser } from 'eventsource-parser';
import type { Identity } from './api';

/**
 * Server-sent events over fetch (EventSource cannot send an Authorization header), parsed by
 * eventsource-parser; reconnects with backoff until stopped.
 */
export function subscribe(
  identity: Identity,
  path: string,
  onEvent: (event: string, data: unknown) => void,
  onState: (state: 'live' | 'reconnecting' | 'refused', detail?: string) => void,
): () => void {
  const controller = new AbortController();
  let delay = 500;
  const run = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(path, {
          headers: { authorization: `Bearer ${identity.token}`, accept: 'text/event-stream' },
          signal: controller.signal,
        });
        if (response.status === 401 || response.status === 403) {
          onState('refused', `${response.status}`);
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        onState('live');
        delay = 500;
        await readEvents(response.body, onEvent);
      } catch (err) {
        if (controller.signal.aborted) return;
        onState('reconnecting', err instanceof Error ? err.message : String(err));
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  };
  void run();
  return () => controller.abort();
}

/** Hands each event of the stream to `onEvent` (data parsed as JSON when it is), until it ends. */
async function readEvents(
  body: NonNullable<Response['body']>,
  onEvent: (event: string, data: unknown) => void,
): Promise<void> {
  const parser = createParser({
    onEvent: (message) => {
      let data: unknown = message.data;
      try {
        data = JSON.parse(message.data);
      } catch {
        // plain text data
      }
      onEvent(message.event ?? 'message', data);
    },
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
}
