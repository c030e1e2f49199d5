import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { EgressDeniedError } from '../net/egress-fetch';
import { mcpCallError } from './mcp-errors';
import { mcpAnswer, mcpErrorText } from './mcp-result';

describe(mcpAnswer.name, () => {
  it('gives the structured content when there is one', () => {
    expect(mcpAnswer({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } })).toEqual({ a: 1 });
  });

  it('gives one text block as its text, several blocks as a list, binary data described', () => {
    expect(mcpAnswer({ content: [{ type: 'text', text: 'hello' }] })).toBe('hello');
    expect(
      mcpAnswer({
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a', name: 'a' },
        ],
      }),
    ).toEqual(['see', { type: 'image', mime_type: 'image/png', size_bytes: 5 }, { type: 'resource_link', uri: 'file:///a', name: 'a' }]);
    expect(mcpAnswer({ content: [] })).toBeNull();
  });

  it('reads an error result as text', () => {
    expect(mcpErrorText({ isError: true, content: [{ type: 'text', text: 'out of stock' }] })).toBe('out of stock');
  });
});

describe(mcpCallError.name, () => {
  it.each([
    [new McpError(ErrorCode.RequestTimeout, 'Request timed out'), true, 'timeout'],
    [new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), true, 'network'],
    [new McpError(ErrorCode.InvalidParams, 'Tool nope not found'), false, 'invalid'],
    [new StreamableHTTPError(503, 'unavailable'), true, 'server'],
    [new StreamableHTTPError(429, 'slow down'), true, 'rate_limited'],
    [new StreamableHTTPError(401, 'unauthorized'), false, 'client_error'],
    [new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }), true, 'network'],
    [new TypeError('fetch failed', { cause: new EgressDeniedError('169.254.169.254 is link-local') }), false, 'denied'],
    [new Error('unexpected result shape'), false, 'invalid'],
  ])('classifies %s as retryable=%s (%s)', (error, retryable, kind) => {
    expect(mcpCallError(error, 'MCP server kit')).toMatchObject({ retryable, kind });
  });

  it('calls a failure after the caller aborted an abort, not a retry', () => {
    const controller = new AbortController();
    controller.abort();
    expect(mcpCallError(new Error('AbortError'), 'MCP server kit', controller.signal)).toMatchObject({ retryable: false, kind: 'aborted' });
  });
});
