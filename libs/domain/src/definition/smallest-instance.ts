// How many bytes of compact JSON the smallest value a schema accepts takes: an estimate following what
// makes values big (required properties, minItems, minLength, minProperties, const and enum values,
// allOf and references) and taking anyOf and oneOf at their smallest branch. A schema with no type is
// read by its keywords (`properties`: an object, `items`: an array, `minLength`: a string), as a model
// or a dry run reads it.
import { isSchemaNode, REFERENCE_KEYWORDS, type SchemaNode } from './schema-keywords';
import type { SchemaIndex } from './schema-refs';

/** Schemas measured at most: a schema whose references loop is measured again on each way in. */
const WORK_BUDGET = 100_000;

const OBJECT_KEYWORDS = ['properties', 'required', 'minProperties', 'additionalProperties', 'patternProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'contains'];
const STRING_KEYWORDS = ['minLength', 'pattern', 'format'];
const SMALLEST_OF_TYPE: Record<string, number> = { null: 4, boolean: 4, number: 1, integer: 1 };
/** `"":0,`: a property of the shortest name and value, and its comma. */
const SMALLEST_PROPERTY = 5;

class OutOfWork extends Error {}

/** The estimate in bytes (Infinity: no value of finite size), or null when measuring took too long. */
export function smallestInstanceBytes(schema: unknown, index: SchemaIndex): number | null {
  try {
    return new Measure(index).size(schema);
  } catch (error) {
    if (error instanceof OutOfWork) return null;
    throw error;
  }
}

const jsonBytes = (value: unknown): number => JSON.stringify(value)?.length ?? 4;
const count = (value: unknown, fallback = 0): number => (typeof value === 'number' && value >= 0 ? value : fallback);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

class Measure {
  private readonly known = new Map<SchemaNode, number>();
  private readonly onTheWay = new Set<SchemaNode>();
  private loopsCut = 0;
  private work = 0;

  constructor(private readonly index: SchemaIndex) {}

  size(schema: unknown): number {
    if (schema === false) return Number.POSITIVE_INFINITY;
    if (!isSchemaNode(schema)) return 1;
    const known = this.known.get(schema);
    if (known !== undefined) return known;
    if (this.onTheWay.has(schema)) {
      // A value that must hold itself: none is finite on this way.
      this.loopsCut++;
      return Number.POSITIVE_INFINITY;
    }
    if (++this.work > WORK_BUDGET) throw new OutOfWork();
    const cutBefore = this.loopsCut;
    this.onTheWay.add(schema);
    const bytes = this.withApplicators(schema);
    this.onTheWay.delete(schema);
    // Measured with a loop cut short, the size may be too large from another way in: not kept.
    if (this.loopsCut === cutBefore) this.known.set(schema, bytes);
    return bytes;
  }

  /** The value must follow every allOf part and reference, and one branch of anyOf and oneOf. */
  private withApplicators(s: SchemaNode): number {
    let bytes = this.own(s);
    for (const part of list(s.allOf)) bytes = Math.max(bytes, this.size(part));
    for (const key of ['anyOf', 'oneOf']) {
      const branches = list(s[key]);
      if (branches.length) bytes = Math.max(bytes, Math.min(...branches.map((branch) => this.size(branch))));
    }
    for (const keyword of REFERENCE_KEYWORDS) {
      if (typeof s[keyword] === 'string') bytes = Math.max(bytes, this.size(this.index.resolve(s[keyword] as string, s)));
    }
    return bytes;
  }

  private own(s: SchemaNode): number {
    if ('const' in s) return jsonBytes(s.const);
    if (Array.isArray(s.enum)) return s.enum.length ? Math.min(...s.enum.map(jsonBytes)) : Number.POSITIVE_INFINITY;
    return Math.min(...typesOf(s).map((type) => this.ofType(s, type)));
  }

  private ofType(s: SchemaNode, type: string): number {
    if (type === 'string') return count(s.minLength) + 2;
    if (type === 'object') return this.object(s);
    if (type === 'array') return this.array(s);
    return SMALLEST_OF_TYPE[type] ?? 1;
  }

  private object(s: SchemaNode): number {
    const required = [...new Set(list(s.required).filter((name): name is string => typeof name === 'string'))];
    const properties = isSchemaNode(s.properties) ? s.properties : {};
    const others = 'patternProperties' in s ? true : (s.additionalProperties ?? true);
    let bytes = 2 + Math.max(0, required.length - 1);
    for (const name of required) bytes += jsonBytes(name) + 1 + this.size(Object.hasOwn(properties, name) ? properties[name] : others);
    return bytes + Math.max(0, count(s.minProperties) - required.length) * SMALLEST_PROPERTY;
  }

  private array(s: SchemaNode): number {
    const items = Math.max(count(s.minItems), 'contains' in s ? count(s.minContains, 1) : 0);
    if (items === 0) return 2;
    const [tuple, rest] = Array.isArray(s.prefixItems)
      ? [s.prefixItems, s.items]
      : Array.isArray(s.items)
        ? [s.items, s.additionalItems]
        : [[], s.items];
    const positional = Math.min(items, tuple.length);
    let bytes = 2 + (items - 1);
    for (let i = 0; i < positional; i++) bytes += this.size(tuple[i]);
    if (items > positional) {
      const each = this.size(rest ?? true);
      // A finite size too large for a double is still finite: an astronomical array, not an impossible one.
      bytes = each === Number.POSITIVE_INFINITY ? each : Math.min(bytes + (items - positional) * each, Number.MAX_VALUE);
    }
    return bytes;
  }
}

/** The types a schema allows, by `type` or else by the keywords it uses; ['any'] when nothing says. */
function typesOf(s: SchemaNode): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type) && s.type.length) return s.type.filter((type): type is string => typeof type === 'string');
  const implied = [
    ...(OBJECT_KEYWORDS.some((key) => key in s) ? ['object'] : []),
    ...(ARRAY_KEYWORDS.some((key) => key in s) ? ['array'] : []),
    ...(STRING_KEYWORDS.some((key) => key in s) ? ['string'] : []),
  ];
  return implied.length ? implied : ['any'];
}
