/** The JSON inside a model's answer: bare, or wrapped in a ```json fence or in prose. Undefined if none. */
export function parseJsonAnswer(text: string | null): unknown {
  if (!text) return undefined;
  const candidates = [text.trim(), /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1]?.trim()];
  const firstBrace = text.search(/[[{]/);
  if (firstBrace >= 0) candidates.push(text.slice(firstBrace, Math.max(text.lastIndexOf('}'), text.lastIndexOf(']')) + 1));
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === 'object') return value;
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}
