import { modelToolName, offeredToolName, parseMcpToolName, qualifiedMcpToolName } from './mcp-tool-names';

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

describe(parseMcpToolName.name, () => {
  it('splits at the first dot: server names have none, tool names may', () => {
    expect(parseMcpToolName('docs.search')).toEqual({ server: 'docs', tool: 'search' });
    expect(parseMcpToolName('fs.read.file')).toEqual({ server: 'fs', tool: 'read.file' });
    expect(qualifiedMcpToolName({ server: 'fs', tool: 'read.file' })).toBe('fs.read.file');
  });

  it.each(['search_web', '.search', 'docs.', 'do cs.search', `docs.${'x'.repeat(129)}`])(
    'is null for %j (not an MCP tool name)',
    (name) => {
      expect(parseMcpToolName(name)).toBeNull();
    },
  );
});

describe(modelToolName.name, () => {
  it('joins server and tool with __ when that is already safe', () => {
    expect(modelToolName({ server: 'docs', tool: 'search' })).toBe('docs__search');
    expect(modelToolName({ server: 'everything', tool: 'get-sum' })).toBe('everything__get-sum');
  });

  it('replaces unsafe characters and adds a hash, so names differing only there stay apart', () => {
    const dotted = modelToolName({ server: 'fs', tool: 'read.file' });
    const slashed = modelToolName({ server: 'fs', tool: 'read/file' });
    expect(dotted).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
    expect(slashed).toMatch(SAFE);
    expect(slashed).not.toBe(dotted);
  });

  it('cuts names over 64 characters, keeping them distinct and stable', () => {
    const long = (suffix: string) => ({ server: 's'.repeat(40), tool: `${'t'.repeat(60)}${suffix}` });
    const [a, b] = [modelToolName(long('a')), modelToolName(long('b'))];
    expect(a).toMatch(SAFE);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(modelToolName(long('a'))).toBe(a);
  });
});

describe(offeredToolName.name, () => {
  it('maps MCP names and leaves registered and built-in names as they are', () => {
    expect(offeredToolName('kit.lookup')).toBe('kit__lookup');
    expect(offeredToolName('http_request')).toBe('http_request');
  });
});
