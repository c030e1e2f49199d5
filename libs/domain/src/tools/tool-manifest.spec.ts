import type { StepDefinition, ToolSpec } from '@app/contracts';
import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { buildToolManifest, canonicalJson, checkToolDrift, compareManifests, manifestHash, toolNamesOf } from './tool-manifest';

const search: ToolSpec = { name: 'search', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } } };
const fetchPage: ToolSpec = { name: 'fetch_page', description: 'Fetch a page', parameters: { type: 'object' } };

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('drops undefined properties like JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
    expect(canonicalJson([undefined])).toBe('[null]');
  });
});

describe('manifestHash', () => {
  it('is the sha256 of the canonical JSON, whatever the key order', () => {
    const hash = manifestHash([search]);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(
      manifestHash([{ parameters: { properties: { q: { type: 'string' } }, type: 'object' }, description: 'Search', name: 'search' }]),
    ).toBe(hash);
    expect(manifestHash([{ ...search, description: 'Search the web' }])).not.toBe(hash);
  });

  it('hashes the empty manifest too', () => {
    expect(manifestHash([])).toBe('4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945');
  });
});

describe('toolNamesOf', () => {
  it("lists the agents' tools once each, sorted", () => {
    const steps = [
      { type: 'custom_agent', tools: ['search', 'http_request'] },
      { type: 'custom_llm' },
      { type: 'custom_agent', tools: ['search'] },
    ] as unknown as StepDefinition[];
    expect(toolNamesOf(steps)).toEqual(['http_request', 'search']);
  });
});

describe('buildToolManifest', () => {
  it('takes name, description and parameters of each tool, sorted by name, and marks unknown names missing', () => {
    const known = [search, fetchPage, { name: 'unused', description: 'x', parameters: {} }];
    expect(buildToolManifest(['search', 'ghost', 'fetch_page'], known)).toEqual([
      { name: 'fetch_page', description: 'Fetch a page', parameters: { type: 'object' } },
      { name: 'ghost', missing: true },
      { name: 'search', description: 'Search', parameters: search.parameters },
    ]);
  });

  it('keeps only the manifest fields of richer records', () => {
    const record = { ...search, uuid: 'u', endpoint_url: 'http://x' } as ToolSpec;
    expect(buildToolManifest(['search'], [record])).toEqual([{ name: 'search', description: 'Search', parameters: search.parameters }]);
  });
});

describe('compareManifests', () => {
  it('finds nothing when the manifests agree (key order aside)', () => {
    const reordered = { name: 'search', parameters: { properties: { q: { type: 'string' } }, type: 'object' }, description: 'Search' };
    expect(compareManifests([search, { name: 'ghost', missing: true }], [reordered, { name: 'ghost', missing: true }])).toEqual([]);
  });

  it('names tools added, removed and changed, with the fields that changed', () => {
    const saved = [fetchPage, { name: 'later', missing: true as const }, search];
    const current = [
      { name: 'fetch_page', missing: true as const },
      { ...fetchPage, name: 'later' },
      { ...search, parameters: { type: 'object' } },
    ];
    expect(compareManifests(saved, current)).toEqual([
      { name: 'fetch_page', change: 'removed' },
      { name: 'later', change: 'added' },
      { name: 'search', change: 'changed', fields: ['parameters'] },
    ]);
  });

  it('reports both fields when description and parameters changed', () => {
    expect(compareManifests([search], [{ name: 'search', description: 'Other', parameters: {} }])).toEqual([
      { name: 'search', change: 'changed', fields: ['description', 'parameters'] },
    ]);
  });
});

describe('checkToolDrift', () => {
  const saved = { tool_manifest: [search], tool_manifest_hash: manifestHash([search]) };
  const changed = [{ ...search, parameters: { type: 'object' } }];

  it('finds no drift when the tools agree, or when nothing was saved', () => {
    expect(checkToolDrift('fail', saved, [search])).toBeNull();
    expect(checkToolDrift('fail', null, changed)).toBeNull();
  });

  it('with "warn" gives the changed tools and both hashes', () => {
    expect(checkToolDrift('warn', saved, changed)).toEqual({
      tools: [{ name: 'search', change: 'changed', fields: ['parameters'] }],
      saved_hash: saved.tool_manifest_hash,
      current_hash: manifestHash(changed),
    });
  });

  it('with "fail" refuses with TOOL_DRIFT naming the tools', () => {
    const error = errorOf(() => checkToolDrift('fail', saved, changed));
    expect(error.code).toBe(ErrorCode.ToolDrift);
    expect(error.message).toContain('search (changed: parameters)');
    expect(error.details).toEqual({
      field: 'tool_drift',
      tools: [{ name: 'search', change: 'changed', fields: ['parameters'] }],
      saved_hash: saved.tool_manifest_hash,
      current_hash: manifestHash(changed),
    });
  });
});
