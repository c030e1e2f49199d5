// TOOL_ANSWER_MAX_BYTES for MCP servers over HTTP. The SDK's transport reads each answer through our fetch,
// whose response bodies are capped (cappedResponse); but the SDK reads an SSE answer in a loop of its own
// that reports a failed stream to `onerror` only, and the call would wait for its timeout. So each call
// runs in an async context that the fetch reads when the SDK sends the call's request: a body that passes
// the cap fails that call at once, and aborts it (the SDK tells the server it was cancelled).
import { AsyncLocalStorage } from 'node:async_hooks';
import { type AnswerTooLargeError, cappedResponse } from '../net/capped-body';

type Trip = (error: AnswerTooLargeError) => void;

export class McpAnswerCap {
  private readonly calls = new AsyncLocalStorage<Trip>();

  constructor(readonly maxBytes: number) {}

  /** Runs `call` with a signal of its own, failing it with AnswerTooLargeError as soon as an answer read for it passes the cap. */
  async run<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let trip!: Trip;
    const tripped = new Promise<never>((_, reject) => {
      trip = (error) => {
        reject(error);
        controller.abort(error);
      };
    });
    // Settled by the race, or never: either way no unhandled rejection.
    tripped.catch(() => undefined);
    return this.calls.run(trip, () => Promise.race([call(controller.signal), tripped]));
  }

  /** The fetch's response, its body capped; passing the cap fails the call whose request it answers. */
  response(response: Response): Response {
    return cappedResponse(response, this.maxBytes, this.calls.getStore());
  }
}
