import { AnswerTooLargeError, cappedResponse } from './capped-body';

const bytesOf = (text: string) => new TextEncoder().encode(text);

/** A response whose body arrives in these chunks. */
function responseOf(chunks: string[], headers: Record<string, string>): Response {
  const queue = [...chunks];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(bytesOf(next));
    },
  });
  return new Response(body, { headers });
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

describe(cappedResponse.name, () => {
  it('passes a body up to the cap as it is', async () => {
    expect(await cappedResponse(responseOf(['abc', 'def'], { 'content-type': 'text/plain' }), 6).text()).toBe('abcdef');
  });

  it('fails a body past the cap, telling the caller too', async () => {
    const told: AnswerTooLargeError[] = [];
    const error = await failureOf(
      cappedResponse(responseOf(['abc', 'def', 'g'], { 'content-type': 'application/json' }), 6, (tooLarge) => told.push(tooLarge)).text(),
    );

    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(told).toEqual([error]);
  });

  it('fails a body whose content-length is past the cap before reading any of it', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({ pull: (controller) => void (pulled++, controller.enqueue(bytesOf('x'))) });
    const error = await failureOf(cappedResponse(new Response(body, { headers: { 'content-length': '100' } }), 10).text());

    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(pulled).toBeLessThanOrEqual(1); // a stream pulls once as it starts
  });

  it('bounds an event stream per event, with any line ending, however long the stream', async () => {
    const event = (n: number, end: string) => `data: ${'x'.repeat(n)}${end}${end}`;
    const many = Array.from({ length: 50 }, (_, i) => event(80, ['\n', '\r\n', '\r'][i % 3]));

    expect((await cappedResponse(responseOf(many, { 'content-type': 'text/event-stream' }), 100).text()).length).toBe(many.join('').length);
  });

  it('fails an event past the cap, even one that arrives a byte at a time or after a CRLF cut in two', async () => {
    const big = `data: ${'x'.repeat(200)}\r\n\r\n`;
    for (const chunks of [[big], big.split(''), ['data: ok\r', '\n\r', '\n', big]]) {
      expect(
        await failureOf(cappedResponse(responseOf(chunks, { 'content-type': 'text/event-stream; charset=utf-8' }), 100).text()),
      ).toBeInstanceOf(AnswerTooLargeError);
    }
  });
});
