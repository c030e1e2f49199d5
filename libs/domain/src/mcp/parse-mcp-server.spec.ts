import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { parseMcpServerInput, parseMcpServerPatch } from './parse-mcp-server';

const http = { name: 'docs', transport: 'streamable_http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } };

describe(parseMcpServerInput.name, () => {
  it('takes a streamable HTTP server with its headers and the default timeout', () => {
    expect(parseMcpServerInput(http, false)).toEqual({ ...http, command: null, args: [], env: {}, timeout_ms: 30_000 });
  });

  it('takes a stdio server only when stdio is allowed', () => {
    const stdio = { name: 'local', transport: 'stdio', command: 'node', args: ['server.js'], env: { TOKEN: 't' } };
    expect(parseMcpServerInput(stdio, true)).toMatchObject({
      command: 'node',
      args: ['server.js'],
      env: { TOKEN: 't' },
      url: null,
      headers: {},
    });
    expect(errorOf(() => parseMcpServerInput(stdio, false))).toMatchObject({
      code: ErrorCode.McpStdioDisabled,
      details: { field: 'transport' },
    });
  });

  it.each([
    [{ ...http, url: undefined }, 'url'],
    [{ ...http, command: 'node' }, 'command'],
    [{ ...http, name: 'a.b' }, 'name'],
    [{ ...http, url: 'ftp://x' }, 'url'],
    [{ ...http, headers: { a: 1 } }, 'headers.a'],
    [{ ...http, extra: true }, 'extra'],
  ])('refuses %j naming %s', (body, field) => {
    expect(errorOf(() => parseMcpServerInput(body, true)).details.field).toBe(field);
  });
});

describe(parseMcpServerPatch.name, () => {
  const current = parseMcpServerInput(http, true);

  it('merges the patch over the stored server, keeping its secrets unless given', () => {
    expect(parseMcpServerPatch({ timeout_ms: 5000 }, current, false)).toEqual({ ...current, timeout_ms: 5000 });
    expect(parseMcpServerPatch({ headers: {} }, current, false).headers).toEqual({});
  });

  it("drops the former transport's fields when the transport changes", () => {
    expect(parseMcpServerPatch({ transport: 'stdio', command: 'node' }, current, true)).toMatchObject({
      transport: 'stdio',
      url: null,
      headers: {},
      command: 'node',
    });
  });

  it('refuses an empty patch or unknown fields', () => {
    expect(errorOf(() => parseMcpServerPatch({}, current, true)).code).toBe(ErrorCode.ValidationFailed);
    expect(errorOf(() => parseMcpServerPatch({ secret: 'x' }, current, true)).details.field).toBe('secret');
  });
});
