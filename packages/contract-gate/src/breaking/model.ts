/** What the gate reads (the contracts of one side), what it names (items) and what it reports (changes). */

/** One side of the comparison: the OpenAPI document parsed, the SDL, and the proto files by path. */
export interface Contracts {
  openapi: Record<string, unknown>;
  graphql: string;
  proto: Map<string, string>;
}

/** One item that carries meaning text, as one side of the comparison has it. */
export interface MeaningItem {
  /** Stable key within its contract (both sides use the same). */
  key: string;
  /** The form the gate reports, e.g. `Order.amount`, `GET /v1/orders 429`. */
  item: string;
  /** Every form that names it in a bullet. */
  names: string[];
  /** Named also by one bullet naming one of `parents` and one of `leaf`. */
  within?: { parents: string[]; leaf: string[] };
  /** The key of the item it belongs to, if any: an added item's children are covered by it. */
  parentKey?: string;
  /** The meaning text by attribute: description, example, default, format, pattern, minimum, … */
  text: Record<string, unknown>;
}

/** One finding of a contract comparison. */
export interface Change {
  contract: 'openapi' | 'graphql' | 'proto';
  /** What changed, in a form a retirement or changelog entry can name (e.g. `GET /v1/orders`, `Order.note`). */
  item: string;
  /** The rule that classified it (e.g. `response-member-removed`, `FIELD_SAME_JSON_NAME`). */
  rule: string;
  /** What happened and why it matters to a client. */
  message: string;
  breaking: boolean;
  /** A removal, which a recorded retirement may allow (deprecate, measure, then retire). */
  removal?: boolean;
  /**
   * A risky change that passes once an Unreleased entry of its contract names its item: under any heading
   * (`true`: graphql-inspector's "dangerous"), or only under the heading given (`'Security'`: a new or
   * lowered upper bound of a request input, which a client that sent more than it now meets as `400`),
   * or (`'Stated'`) under `### Security` or in a `[docs]` bullet: a rule the last release already stated
   * for a twin of the member in another contract (./input-rules.ts).
   */
  acknowledge?: true | 'Security' | 'Stated';
  /** A narrowed input rule: its keyword (`maxLength`, `pattern`, `enum`: the values still accepted, …) and its new value. */
  keyword?: string;
  value?: unknown;
}
