import { fetchWithDeadline, readBody } from './http-fetch';
import { ToolCallError } from './tool-transport';

interface HttpRequestArgs {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** The built-in `http_request` tool: the agent's generic HTTP client. Its answers go back to the model. */
export async function httpRequestTool(args: HttpRequestArgs, options: { signal?: AbortSignal; timeoutMs: number }) {
  if (!/^https?:\/\//i.test(args?.url ?? '')) throw new ToolCallError('http_request needs an http(s) url', false);
  const hasBody = args.body !== undefined && args.method !== 'GET' && args.method !== 'HEAD';
  const response = await fetchWithDeadline(
    args.url,
    {
      method: args.method ?? 'GET',
      headers: { ...(hasBody && typeof args.body !== 'string' ? { 'content-type': 'application/json' } : {}), ...(args.headers ?? {}) },
      ...(hasBody ? { body: typeof args.body === 'string' ? args.body : JSON.stringify(args.body) } : {}),
    },
    options.timeoutMs,
    options.signal,
  );
  const { status, body, truncated } = await readBody(response);
  return { status, content_type: response.headers.get('content-type'), body, truncated };
}
