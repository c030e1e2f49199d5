// Where a JSON Schema (draft-07, 2019-09, 2020-12) holds other schemas, and how each applies: to the same
// value (`allOf`, `$ref`...: evaluated in place, so a loop of them never ends), to the value's parts
// (`properties`, `items`...), or to nothing until referenced (`$defs`, `definitions`).

export type SchemaNode = Record<string, unknown>;
export type Applies = 'in_place' | 'to_parts' | 'stored';

export interface Subschema {
  schema: unknown;
  applies: Applies;
}

const IN_PLACE_ONE = ['not', 'if', 'then', 'else'];
const IN_PLACE_LIST = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_MAP = ['dependentSchemas'];
const PARTS_ONE = ['additionalProperties', 'propertyNames', 'additionalItems', 'contains', 'unevaluatedItems', 'unevaluatedProperties'];
const PARTS_LIST = ['prefixItems'];
const PARTS_MAP = ['properties', 'patternProperties'];
const STORED_MAP = ['$defs', 'definitions'];

/** The keywords whose value is a reference: resolved, they apply in place. */
export const REFERENCE_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;

export const isSchemaNode = (value: unknown): value is SchemaNode => value !== null && typeof value === 'object' && !Array.isArray(value);

const mapValues = (value: unknown): unknown[] => (isSchemaNode(value) ? Object.values(value) : []);
const listValues = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The schemas written inside `node` (references not followed). */
export function subschemasOf(node: SchemaNode): Subschema[] {
  const found: Subschema[] = [];
  const add = (schemas: unknown[], applies: Applies) => {
    for (const schema of schemas) if (typeof schema === 'boolean' || isSchemaNode(schema)) found.push({ schema, applies });
  };
  for (const key of IN_PLACE_ONE) if (key in node) add([node[key]], 'in_place');
  for (const key of IN_PLACE_LIST) add(listValues(node[key]), 'in_place');
  for (const key of IN_PLACE_MAP) add(mapValues(node[key]), 'in_place');
  // draft-07's `dependencies`: a list of names (dependentRequired) or a schema (dependentSchemas).
  add(
    mapValues(node.dependencies).filter((value) => !Array.isArray(value)),
    'in_place',
  );
  for (const key of PARTS_ONE) if (key in node) add([node[key]], 'to_parts');
  for (const key of PARTS_LIST) add(listValues(node[key]), 'to_parts');
  for (const key of PARTS_MAP) add(mapValues(node[key]), 'to_parts');
  // `items`: one schema for every item, or (draft-07, 2019-09) a list, one per position.
  add(Array.isArray(node.items) ? node.items : 'items' in node ? [node.items] : [], 'to_parts');
  for (const key of STORED_MAP) add(mapValues(node[key]), 'stored');
  return found;
}
