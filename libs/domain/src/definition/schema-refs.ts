// The references of one user schema, resolved within it (ajv fetches nothing either): `#`, JSON pointers
// (`#/$defs/item`), anchors (`$anchor`, `$dynamicAnchor`, draft-07's `$id: "#name"`) and the `$id`s of
// resources nested in the document. Dynamic references are resolved as if static: enough to bound costs.
import { isSchemaNode, subschemasOf, type SchemaNode } from './schema-keywords';

const DOCUMENT_BASE = 'https://stepwise.invalid/schema';

export class SchemaIndex {
  private readonly baseOf = new Map<SchemaNode, string>();
  private readonly resources = new Map<string, unknown>();
  private readonly anchors = new Map<string, unknown>();
  private readonly resolved = new Map<string, unknown>();

  constructor(readonly root: unknown) {
    const stack: [unknown, string][] = [[root, DOCUMENT_BASE]];
    this.resources.set(DOCUMENT_BASE, root);
    while (stack.length) {
      const [node, inherited] = stack.pop()!;
      if (!isSchemaNode(node) || this.baseOf.has(node)) continue;
      const base = this.identify(node, inherited);
      this.baseOf.set(node, base);
      for (const { schema } of subschemasOf(node)) stack.push([schema, base]);
    }
  }

  /** The schema `ref`, written in `from`, names; undefined when it names none in this document. */
  resolve(ref: string, from: SchemaNode): unknown {
    const base = this.baseOf.get(from) ?? DOCUMENT_BASE;
    // A walk follows one reference thousands of times: parse it once.
    const key = `${base} ${ref}`;
    if (this.resolved.has(key)) return this.resolved.get(key);
    const target = this.lookUp(ref, base);
    this.resolved.set(key, target);
    return target;
  }

  private lookUp(ref: string, base: string): unknown {
    let url: URL;
    let fragment: string;
    try {
      url = new URL(ref, base);
      fragment = decodeURIComponent(url.hash.slice(1));
    } catch {
      return undefined;
    }
    url.hash = '';
    const resource = this.resources.get(url.href);
    if (resource === undefined) return undefined;
    const target =
      fragment === '' ? resource : fragment.startsWith('/') ? pointer(resource, fragment) : this.anchors.get(`${url.href}#${fragment}`);
    // A pointer may reach a schema the walk did not (under an unknown keyword): it takes its resource's base.
    if (isSchemaNode(target) && !this.baseOf.has(target)) this.baseOf.set(target, url.href);
    return target;
  }

  /** Records the resource or anchors `node` declares; gives the base its references resolve against. */
  private identify(node: SchemaNode, inherited: string): string {
    let base = inherited;
    if (typeof node.$id === 'string') {
      try {
        const url = new URL(node.$id, inherited);
        const anchor = url.hash.slice(1);
        url.hash = '';
        if (node.$id.startsWith('#')) this.anchors.set(`${url.href}#${anchor}`, node);
        else {
          base = url.href;
          this.resources.set(base, node);
          if (anchor) this.anchors.set(`${base}#${anchor}`, node);
        }
      } catch {
        // Not a URI: ajv has refused the schema already.
      }
    }
    for (const key of ['$anchor', '$dynamicAnchor'])
      if (typeof node[key] === 'string') this.anchors.set(`${base}#${node[key] as string}`, node);
    return base;
  }
}

/** RFC 6901: `/items/0` from `document`. */
function pointer(document: unknown, path: string): unknown {
  let at = document;
  for (const raw of path.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}
