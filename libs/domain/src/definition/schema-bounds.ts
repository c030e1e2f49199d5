// What a user's JSON Schema (an output_schema, a human input_schema, a tool's parameters) may cost, checked
// at save so that no schema can hurt the API or the worker later:
// - its document: depth, values, schemas written in it (ajv compiles each, 0.1-0.7 ms apiece on every
//   save), enum lengths, patterns per object, and `uniqueItems` that ajv checks in quadratic time;
// - checking one value: the schemas it is checked against, references followed (2^n for n levels of
//   `allOf: [{$ref: a}, {$ref: a}]`), and no reference loop that never reaches a part of the value (ajv
//   would recurse until the stack overflows);
// - its smallest valid instance (what a model must write, and a dry run builds).
import { ErrorCode } from '../errors';
import { jsonDepth } from '../outputs/json-depth';
import { isSchemaNode, REFERENCE_KEYWORDS, subschemasOf, type SchemaNode } from './schema-keywords';
import { SchemaIndex } from './schema-refs';
import { smallestInstanceBytes } from './smallest-instance';

/** The defaults of the SCHEMA_* settings (libs/config): the apps pass the operator's limits in. */
export const SCHEMA_LIMITS: SchemaLimits = {
  /** Within a stored definition (a step in `steps`), MariaDB's 31 levels of JSON_VALID with room to spare. */
  depth: 24,
  values: 10_000,
  /** Compiling takes 0.1-0.7 ms a subschema (more with patterns), on every save. */
  subschemas: 500,
  enumValues: 1_000,
  patternsPerObject: 100,
  /** `uniqueItems` over items that may be objects or arrays: ajv compares every pair. */
  uniqueItemsMaxItems: 500,
  /** Schemas one value is checked against, references followed. */
  evaluations: 10_000,
  /** References followed within references. */
  referenceDepth: 64,
  smallestInstanceBytes: 64 * 1024,
};

export interface SchemaLimits {
  depth: number;
  values: number;
  subschemas: number;
  enumValues: number;
  patternsPerObject: number;
  uniqueItemsMaxItems: number;
  evaluations: number;
  referenceDepth: number;
  smallestInstanceBytes: number;
}

export interface SchemaProblem {
  code: ErrorCode.InvalidOutputSchema | ErrorCode.SchemaTooLarge;
  message: string;
}

const tooLarge = (message: string): SchemaProblem => ({ code: ErrorCode.SchemaTooLarge, message });
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** Before ajv compiles it: what the document alone would cost. */
export function schemaShapeProblem(schema: unknown, limits: SchemaLimits = SCHEMA_LIMITS): SchemaProblem | null {
  if (jsonDepth(schema, limits.depth + 1) > limits.depth) return tooLarge(`nests deeper than ${limits.depth} levels`);
  if (countValues(schema, limits.values + 1) > limits.values) return tooLarge(`has more than ${limits.values} JSON values`);
  let subschemas = 0;
  const stack = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (++subschemas > limits.subschemas) return tooLarge(`has more than ${limits.subschemas} schemas in it`);
    if (!isSchemaNode(node)) continue;
    const problem = nodeShapeProblem(node, limits);
    if (problem) return tooLarge(problem);
    for (const { schema: child } of subschemasOf(node)) stack.push(child);
  }
  return null;
}

function nodeShapeProblem(node: SchemaNode, limits: SchemaLimits): string | null {
  if (Array.isArray(node.enum) && node.enum.length > limits.enumValues)
    return `has an enum of ${node.enum.length} values, over ${limits.enumValues}`;
  const patterns = isSchemaNode(node.patternProperties) ? Object.keys(node.patternProperties).length : 0;
  if (patterns > limits.patternsPerObject) return `has ${patterns} patternProperties in one object, over ${limits.patternsPerObject}`;
  if (
    node.uniqueItems === true &&
    !scalarItems(node) &&
    !(typeof node.maxItems === 'number' && node.maxItems <= limits.uniqueItemsMaxItems)
  ) {
    return `has uniqueItems over items that may be objects or arrays (each pair is compared): give the items a scalar type, or a maxItems of at most ${limits.uniqueItemsMaxItems}`;
  }
  return null;
}

/** Items whose `type` allows no object nor array: ajv then checks uniqueness in one pass. */
function scalarItems(node: SchemaNode): boolean {
  const type = isSchemaNode(node.items) ? node.items.type : undefined;
  const types = Array.isArray(type) ? type : [type];
  return types.length > 0 && types.every((t) => typeof t === 'string' && SCALAR_TYPES.has(t));
}

/** JSON values in `value`, counted up to `stopAt`. */
function countValues(value: unknown, stopAt: number): number {
  let count = 0;
  const stack = [value];
  while (stack.length && count < stopAt) {
    const current = stack.pop();
    count++;
    if (current !== null && typeof current === 'object') stack.push(...Object.values(current as object));
  }
  return count;
}

/** After ajv compiled it: its references, and what checking a value and writing one would cost. */
export function schemaCostProblem(schema: unknown, limits: SchemaLimits = SCHEMA_LIMITS): SchemaProblem | null {
  const index = new SchemaIndex(schema);
  const walk = new EvaluationWalk(index, limits);
  const problem = walk.visit(schema, new Set(), 0);
  if (problem) return problem;
  const bytes = smallestInstanceBytes(schema, index);
  if (bytes === null) return tooLarge('is too intricate to measure its smallest valid instance');
  if (bytes === Number.POSITIVE_INFINITY) return tooLarge('has no valid instance of finite size');
  if (bytes > limits.smallestInstanceBytes)
    return tooLarge(`has a smallest valid instance of about ${Math.round(bytes)} bytes, over ${limits.smallestInstanceBytes}`);
  return null;
}

/**
 * Walks the schemas one value is checked against, references inlined (a reference back to a schema on
 * the way, through a part of the value, is recursion and is walked once): counts them, and finds the loops
 * that stay on the same value.
 */
class EvaluationWalk {
  private evaluations = 0;
  private readonly referencedOnTheWay = new Set<unknown>();

  constructor(
    private readonly index: SchemaIndex,
    private readonly limits: SchemaLimits,
  ) {}

  /** `samePart`: the schemas on the way here since the walk last went into a part of the value. */
  visit(schema: unknown, samePart: Set<unknown>, depth: number): SchemaProblem | null {
    if (++this.evaluations > this.limits.evaluations)
      return tooLarge(`checks a value against more than ${this.limits.evaluations} schemas once its references are followed`);
    if (!isSchemaNode(schema)) return null;
    samePart.add(schema);
    const problem = this.children(schema, samePart, depth);
    samePart.delete(schema);
    return problem;
  }

  private children(schema: SchemaNode, samePart: Set<unknown>, depth: number): SchemaProblem | null {
    for (const { schema: child, applies } of subschemasOf(schema)) {
      if (applies === 'stored') continue;
      const problem = this.visit(child, applies === 'in_place' ? samePart : new Set(), depth);
      if (problem) return problem;
    }
    for (const keyword of REFERENCE_KEYWORDS) {
      const ref = schema[keyword];
      if (typeof ref !== 'string') continue;
      const problem = this.follow(ref, schema, samePart, depth);
      if (problem) return problem;
    }
    return null;
  }

  private follow(ref: string, from: SchemaNode, samePart: Set<unknown>, depth: number): SchemaProblem | null {
    const target = this.index.resolve(ref, from);
    if (target === undefined)
      return {
        code: ErrorCode.InvalidOutputSchema,
        message: `has a reference ${ref} that names no schema in it (references must stay within the schema)`,
      };
    if (samePart.has(target)) return tooLarge(`has a reference ${ref} that loops back to itself without going into a part of the value`);
    if (this.referencedOnTheWay.has(target)) return null;
    if (depth + 1 > this.limits.referenceDepth) return tooLarge(`follows references more than ${this.limits.referenceDepth} deep`);
    this.referencedOnTheWay.add(target);
    const problem = this.visit(target, samePart, depth + 1);
    this.referencedOnTheWay.delete(target);
    return problem;
  }
}
