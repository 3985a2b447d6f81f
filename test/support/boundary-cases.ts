/**
 * Boundary cases generated from the contracts' input rules (packages/contract-gate/src/rules/contract-rules.ts): for each rule
 * of each member, a value at the bound and one past it, a valid and an invalid value of each format and
 * pattern, lists at and past their size, repeated values where they must be unique. Adding a rule to a
 * contract adds its cases; no value here is a copy of a bound (each is computed from the rule).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { graphqlRules, protoRules, type Rules } from '@order-api/contract-gate';
import {
  buildSchema,
  type GraphQLInputType,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from 'graphql';

const sdl = readFileSync(path.resolve(import.meta.dirname, '../../contracts/schema.graphql'), 'utf8');
const schema = buildSchema(sdl);
const rules = graphqlRules(sdl);

/** One value to send for one member: `accept` says whether the member's rules allow it. */
export interface BoundaryCase {
  /** The GraphQL field the value is sent to (`Mutation.createProduct`). */
  field: string;
  /** Where the value goes in that field's arguments (`['input', 'price']`). */
  path: string[];
  /** The member as the contract names it (`CreateProductInput.price`). */
  member: string;
  /** What the case tries (`maximum 1000000`). */
  rule: string;
  accept: boolean;
  /** Makes the value; `unique()` gives a new short text for members that must differ per request. */
  value: (unique: () => string) => unknown;
  /** The member is a GraphQL `ID`: sent to GraphQL as text. */
  id: boolean;
}

/**
 * Every case of every member that carries a rule, reached from `field`'s arguments. `objectOf` makes a
 * valid value of an input object type (`OrderLineInput`), for lists of them.
 */
export function casesOf(field: string, objectOf: (type: string) => unknown = () => ({})): BoundaryCase[] {
  const [typeName, fieldName] = field.split('.') as [string, string];
  const type = schema.getType(typeName) as {
    getFields(): Record<string, { args: readonly { name: string; type: GraphQLInputType }[] }>;
  };
  const out: BoundaryCase[] = [];
  const visit = (item: string, member: GraphQLInputType, at: string[], seen: Set<string>) => {
    const own = rules.get(item) ?? {};
    const named = getNamedType(member);
    const bare = isNonNullType(member) ? member.ofType : member;
    const list = isListType(bare);
    const id = named.name === 'ID';
    const add = (rule: string, accept: boolean, value: BoundaryCase['value']) =>
      out.push({ field, path: at, member: item, rule, accept, value, id });
    const object = isInputObjectType(named) ? named.name : undefined;
    for (const made of valuesFor(own, { list, id, integer: named.name === 'Int' || id, item, object, objectOf }))
      add(...made);
    if (isInputObjectType(named) && !seen.has(named.name)) {
      for (const inner of Object.values(named.getFields())) {
        const next = list ? [...at, '0', inner.name] : [...at, inner.name];
        visit(`${named.name}.${inner.name}`, inner.type, next, new Set(seen).add(named.name));
      }
    }
  };
  for (const argument of type.getFields()[fieldName]?.args ?? []) {
    visit(`${field}.${argument.name}`, argument.type, [argument.name], new Set());
  }
  return out;
}

interface Shape {
  list: boolean;
  id: boolean;
  integer: boolean;
  item: string;
  /** The input object type of the values, if they are objects. */
  object: string | undefined;
  objectOf: (type: string) => unknown;
}
type Made = [string, boolean, BoundaryCase['value']];

/** The values that probe `own`, each marked accepted or refused by the rules. */
function valuesFor(own: Rules, shape: Shape): Made[] {
  const made: Made[] = [];
  const { minItems, maxItems, uniqueItems, minProperties, ...scalar } = own;
  if (shape.list) {
    const element = (index: number) => elementOf(scalar, shape, index);
    if (typeof minItems === 'number') {
      made.push([`minItems ${minItems}`, true, () => Array.from({ length: minItems }, (_, i) => element(i))]);
      made.push([
        `minItems ${minItems}, one fewer`,
        false,
        () => Array.from({ length: minItems - 1 }, (_, i) => element(i)),
      ]);
    }
    if (typeof maxItems === 'number') {
      made.push([`maxItems ${maxItems}`, true, () => Array.from({ length: maxItems }, (_, i) => element(i))]);
      made.push([
        `maxItems ${maxItems}, one more`,
        false,
        () => Array.from({ length: maxItems + 1 }, (_, i) => element(i)),
      ]);
    }
    if (uniqueItems === true) made.push(['uniqueItems, a value twice', false, () => [element(0), element(0)]]);
    // Rules of the values apply to each: probe them on a list of one.
    for (const [rule, accept, value] of scalarValues(scalar, shape))
      made.push([`each value: ${rule}`, accept, (u) => [value(u)]]);
    return made;
  }
  if (typeof minProperties === 'number') made.push([`minProperties ${minProperties}, none given`, false, () => ({})]);
  return [...made, ...scalarValues(scalar, shape)];
}

/** A list's `index`-th element that keeps the element rules: distinct, in range. */
function elementOf(scalar: Rules, shape: Shape, index: number): unknown {
  if (shape.object) return shape.objectOf(shape.object);
  if (shape.integer) return (typeof scalar.minimum === 'number' ? scalar.minimum : 0) + index;
  if (shape.item.endsWith('.status')) return 'PAID';
  return `v${index}`;
}

/** Values at and past each scalar rule. */
function scalarValues(scalar: Rules, shape: Shape): Made[] {
  const made: Made[] = [];
  const { minimum, maximum, multipleOf, minLength, maxLength, pattern, format } = scalar;
  const step = typeof multipleOf === 'number' ? multipleOf : shape.integer ? 1 : 0.01;
  if (typeof minimum === 'number') {
    made.push([`minimum ${minimum}`, true, () => minimum]);
    made.push([`minimum ${minimum}, one step below`, false, () => round(minimum - step)]);
  }
  if (typeof maximum === 'number') {
    made.push([`maximum ${maximum}`, true, () => maximum]);
    // Past 2^53 the next integer is not a JSON number: one step is the next double above.
    const past = maximum >= Number.MAX_SAFE_INTEGER ? maximum + 2 : round(maximum + step);
    made.push([`maximum ${maximum}, one step above`, false, () => past]);
  }
  if (typeof multipleOf === 'number') {
    made.push([`multipleOf ${multipleOf}: 19.99`, true, () => 19.99]);
    made.push([`multipleOf ${multipleOf}: a third decimal`, false, () => 19.999]);
  }
  const text = (length: number) => (unique: () => string) => textOf(length, scalar, unique);
  if (typeof minLength === 'number' && minLength > 0) {
    made.push([`minLength ${minLength}`, true, text(minLength)]);
    made.push([`minLength ${minLength}, one fewer`, false, text(minLength - 1)]);
  }
  if (typeof maxLength === 'number') {
    made.push([`maxLength ${maxLength}`, true, text(maxLength)]);
    made.push([`maxLength ${maxLength}, one more`, false, text(maxLength + 1)]);
    if (pattern === undefined && format === undefined) {
      // Characters, not UTF-16 units: an emoji counts one.
      made.push([`maxLength ${maxLength} in emoji`, true, () => '😀'.repeat(maxLength)]);
      made.push([`maxLength ${maxLength} in emoji, one more`, false, () => '😀'.repeat(maxLength + 1)]);
    }
  }
  if (typeof pattern === 'string') {
    made.push([
      `pattern ${pattern}: a text it matches`,
      true,
      text(typeof minLength === 'number' ? Math.max(minLength, 2) : 2),
    ]);
    made.push([`pattern ${pattern}: one space`, false, () => ' ']);
  }
  if (typeof format === 'string') {
    for (const [sample, accept] of FORMAT_SAMPLES[format] ?? []) {
      // A valid e-mail address is made distinct per request (users' addresses are unique).
      const value = format === 'email' && accept ? (unique: () => string) => `${unique()}.${sample}` : () => sample;
      made.push([`format ${format}: ${sample}`, accept, value]);
    }
  }
  return made;
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Valid and invalid samples of each format the contracts use. */
const FORMAT_SAMPLES: Record<string, Array<[string, boolean]>> = {
  email: [
    ['kim@example.com', true],
    ['x', false],
  ],
  uri: [
    ['https://img.example.com/a.png', true],
    ['not a uri', false],
  ],
  'date | date-time': [
    ['2026-11-01', true],
    ['2026-11-01T10:00:00Z', true],
    ['2026-11-01t10:00:00z', true],
    ['2026-11-01T10:00:00.123456789+09:00', true],
    ['2027-02-28', true],
    ['2027-02-30', false],
    ['2026-11-01T25:00:00Z', false],
    ['yesterday', false],
  ],
};

/**
 * A text of exactly `length` characters that keeps the member's other rules: a sort made of `id` keys,
 * a SKU of letters and digits, an e-mail address or a URI of that length, each made distinct by `unique`.
 */
function textOf(length: number, scalar: Rules, unique: () => string): string {
  if (length <= 0) return '';
  const { pattern, format } = scalar;
  if (
    (typeof pattern === 'string' && pattern.includes('createdAt|')) ||
    (typeof pattern === 'string' && pattern.startsWith('^-?(id|'))
  ) {
    // `id` then `,id` repeated, padded with `-`: `id,id,-id`.
    let sort = 'id';
    while (sort.length + 3 <= length) sort += ',id';
    return sort.length + 1 === length
      ? sort.replace(/^id/, '-id')
      : sort.length + 2 === length
        ? `-${sort.replace(/,id$/, ',-id')}`
        : sort;
  }
  if (typeof pattern === 'string') {
    // Letters or digits, whichever the pattern takes (a SKU, the decimal text of an id), the unique part last.
    const tail = unique().replace(/[^A-Za-z0-9]/g, '');
    const candidates = [
      ('A'.repeat(length) + tail).slice(-length),
      ('1'.repeat(length) + tail.replace(/\D/g, '')).slice(-length),
    ];
    return candidates.find((candidate) => new RegExp(pattern).test(candidate)) ?? (candidates[0] as string);
  }
  if (format === 'email') {
    const local = unique().replace(/[^a-z0-9]/gi, '');
    const domain = (size: number) => {
      const labels: string[] = [];
      let left = size - 4; // '.com'
      while (left > 0) {
        const label = Math.min(63, left === 64 ? 62 : left);
        labels.push('d'.repeat(label));
        left -= label + 1;
      }
      return `${labels.join('.')}.com`;
    };
    const at = Math.max(4 + 2, length - local.length - 1);
    return `${local}@${domain(at)}`.slice(0, length);
  }
  if (format === 'uri') {
    const head = `https://img.example.com/${unique()}/`;
    return head + 'a'.repeat(Math.max(0, length - head.length));
  }
  if (format === 'date | date-time') {
    const head = '2026-11-01T10:00:00.';
    return `${head}${'1'.repeat(Math.max(1, length - head.length - 1))}Z`;
  }
  // The unique part last, so that even a text of one character differs from the one before it.
  return ('x'.repeat(length) + unique()).slice(-length);
}

/** One value for one field of a proto request message. */
export interface ProtoBoundaryCase {
  message: string;
  field: string;
  rule: string;
  accept: boolean;
  value: (unique: () => string) => unknown;
}

/**
 * The cases of every buf.validate rule of the proto packages under `contractsDir`. A repeated field's
 * elements (for its item-count rules) come from `elements`, by `Message.field`, each call a fresh one.
 */
export function protoBoundaryCases(
  contractsDir: string,
  elements: Record<string, () => unknown> = {},
): ProtoBoundaryCase[] {
  const out: ProtoBoundaryCase[] = [];
  for (const [item, own] of protoRules(contractsDir)) {
    const [message, field] = item.split('.') as [string, string];
    const integer = typeof own.minimum === 'number' || typeof own.maximum === 'number';
    const element = elements[item];
    const list = typeof own.minItems === 'number' || typeof own.maxItems === 'number';
    if (list && !element) throw new Error(`no element given for the repeated field ${item}`);
    const shape: Shape = list
      ? { list: true, id: false, integer: false, item, object: item, objectOf: () => (element as () => unknown)() }
      : { list: false, id: false, integer, item, object: undefined, objectOf: () => ({}) };
    const { required, ...rest } = own;
    // An int32 cannot carry a value past its own range: that bound holds by the wire format.
    const values = list ? valuesFor(rest, shape) : scalarValues(rest, shape);
    const made = values.filter(([rule, accept]) => accept || !rule.startsWith('maximum 2147483647'));
    if (required === true) made.push(['required: empty', false, () => '']);
    for (const [rule, accept, value] of made) out.push({ message, field, rule, accept, value });
  }
  return out;
}
