// Many requests at once from one local address, each on a connection of its own (as a storm of guessed keys
// comes): what each was answered, or how its connection failed.
import http from 'node:http';

export interface StormAnswer {
  status: number | null;
  /** The answer's `code`, or the connection's error code. */
  code: string;
}

/** `keyOf(i)` is the i-th guess (by default `sk_guess_<i>`, which cannot be a key). */
export function storm(
  url: string,
  count: number,
  localAddress: string,
  keyOf: (i: number) => string = (i) => `sk_guess_${i}`,
): Promise<StormAnswer[]> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const one = (i: number) =>
    new Promise<StormAnswer>((resolve) => {
      http
        .get(url, { agent, localAddress, headers: { authorization: `Bearer ${keyOf(i)}` } }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? null, code: (JSON.parse(text) as { code: string }).code }));
        })
        .on('error', (error: NodeJS.ErrnoException) => resolve({ status: null, code: error.code ?? error.message }));
    });
  return Promise.all(Array.from({ length: count }, (_, i) => one(i)));
}
