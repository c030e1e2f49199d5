// A server-sent events client for the specs: reads a text/event-stream response as it comes, event by
// event (`id` and the JSON `data`), until the server ends it or the spec stops reading.

export interface SseEvent {
  id: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: Record<string, any>;
}

export interface SseStream {
  status: number;
  /** The response body when it was not a stream (a refusal). */
  error: unknown;
  events: SseEvent[];
  /** Resolves when the server ends the stream (or the spec aborted it). */
  done: Promise<SseEvent[]>;
  /** Resolves once `count` events have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Disconnects, as a closed browser tab does. */
  abort(): void;
}

export async function openSse(
  url: string,
  init: { method?: string; key: string; body?: unknown; headers?: Record<string, string> },
): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    signal: controller.signal,
    headers: {
      authorization: `Bearer ${init.key}`,
      accept: 'text/event-stream',
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const events: SseEvent[] = [];
  const listeners = new Set<() => void>();
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const error = isStream ? null : await response.json().catch(() => null);
  const done = isStream ? read(response, events, () => listeners.forEach((listener) => listener())) : Promise.resolve(events);
  return {
    status: response.status,
    error,
    events,
    done,
    abort: () => controller.abort(),
    waitFor(count, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (events.length < count) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(events);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `${events.length} of ${count} events after ${timeoutMs} ms: ${JSON.stringify(events.map((e) => e.data.response_type))}`,
            ),
          );
        }, timeoutMs);
        listeners.add(check);
        void done.finally(check);
        check();
      });
    },
  };
}

async function read(response: Response, events: SseEvent[], changed: () => void): Promise<SseEvent[]> {
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => line && !line.startsWith(':'))
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
        );
        if (fields.data !== undefined) events.push({ id: Number(fields.id), data: JSON.parse(fields.data) });
      }
      changed();
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  }
  changed();
  return events;
}
