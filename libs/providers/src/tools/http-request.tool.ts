// The built-in `http_request` tool: the agent's generic HTTP client. Its answer goes back to the model, so
// a non-2xx status is an answer like any other, not a failure; only calls that got no answer fail.
import { withoutQueryStrings } from '@app/contracts';
import { BUILTIN_TOOLS } from '@app/domain';
import type { Fetch } from '../net/egress-fetch';
import { DEFAULT_TOOL_TIMEOUT_MS, fetchText, parseBody } from './http-fetch';
import { ToolCallError, type ToolCallOptions, type ToolDescriptor } from './tool-transport';

export const HTTP_REQUEST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpRequestMethod = (typeof HTTP_REQUEST_METHODS)[number];

export interface HttpRequestArgs {
  url: string;
  method?: HttpRequestMethod;
  headers?: Record<string, string>;
  /** Objects are sent as JSON, strings as they are. */
  body?: unknown;
}

export interface HttpRequestResult {
  status: number;
  /** The answer's content-type (also in `headers`), kept for what the tool's description promises. */
  content_type: string | null;
  /** The headers worth showing a model; cookies and the like stay out. */
  headers: Record<string, string>;
  /** JSON when the answer says it is JSON, else text; null when empty. */
  body: unknown;
  /** The body was over 256 KiB and was cut there (a cut JSON body comes back as text). */
  truncated: boolean;
}

/** Its name, description and argument schema are the domain's (what the API lists and agents are offered). */
export const HTTP_REQUEST_TOOL: ToolDescriptor = {
  ...BUILTIN_TOOLS.find((tool) => tool.name === 'http_request')!,
  transport: 'builtin',
  timeout_ms: DEFAULT_TOOL_TIMEOUT_MS,
};

const SHOWN_HEADERS = [
  'content-type',
  'content-length',
  'content-language',
  'location',
  'retry-after',
  'etag',
  'last-modified',
  'cache-control',
  'link',
];

/** `fetch`: the egress-checked one (EgressPolicy.fetch): the model picks the URL. */
export async function httpRequestTool(
  args: HttpRequestArgs,
  options: ToolCallOptions & { timeoutMs?: number; fetch: Fetch },
): Promise<HttpRequestResult> {
  const { url, method, headers } = validate(args);
  const hasBody = args.body !== undefined && args.body !== null && method !== 'GET' && method !== 'HEAD';
  const isText = typeof args.body === 'string';
  const response = await fetchText(
    url,
    {
      method,
      headers: { ...(hasBody && !isText ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(hasBody ? { body: isText ? (args.body as string) : JSON.stringify(args.body) } : {}),
    },
    // The URL is named without its query string: failure messages travel to Temporal and the logs.
    {
      timeoutMs: options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      signal: options.signal,
      what: `http_request ${method} ${withoutQueryStrings(url)}`,
      fetch: options.fetch,
    },
  );
  const contentType = response.headers.get('content-type');
  return {
    status: response.status,
    content_type: contentType,
    headers: Object.fromEntries(SHOWN_HEADERS.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)!]] : []))),
    body: response.truncated ? response.text : parseBody(response.text, contentType, { lenient: false }),
    truncated: response.truncated,
  };
}

/** The model wrote these arguments: anything wrong is a final failure it gets to read. */
function validate(args: HttpRequestArgs): { url: string; method: HttpRequestMethod; headers: Record<string, string> } {
  const invalid = (why: string) => new ToolCallError(`http_request: ${why}`, false, { kind: 'invalid' });
  if (typeof args !== 'object' || args === null) throw invalid('arguments must be an object');
  let url: URL;
  try {
    url = new URL(String(args.url));
  } catch {
    throw invalid(`url must be an absolute http(s) URL, got ${JSON.stringify(args.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`url must be http(s), got ${url.protocol}`);
  const method = String(args.method ?? 'GET').toUpperCase() as HttpRequestMethod;
  if (!HTTP_REQUEST_METHODS.includes(method))
    throw invalid(`method must be one of ${HTTP_REQUEST_METHODS.join(', ')}, got ${JSON.stringify(args.method)}`);
  const headers = args.headers ?? {};
  if (typeof headers !== 'object' || Array.isArray(headers) || Object.values(headers).some((value) => typeof value !== 'string')) {
    throw invalid('headers must be an object of strings');
  }
  return { url: url.toString(), method, headers };
}
