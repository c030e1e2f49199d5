/** Fields a step's structured output may carry its answer to the user in, most specific first. */
const REPLY_FIELDS = ['reply', 'text', 'message', 'answer', 'content'];

/** What a conversational turn answers the user: the output's text, or its JSON when it has none. */
export function replyTextOf(data: unknown): string | null {
  if (data === null || data === undefined) return null;
  if (typeof data === 'string') return data;
  if (typeof data === 'object' && !Array.isArray(data)) {
    const field = REPLY_FIELDS.find((name) => typeof (data as Record<string, unknown>)[name] === 'string');
    if (field) return (data as Record<string, string>)[field];
  }
  return JSON.stringify(data);
}
