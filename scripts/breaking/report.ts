/** One finding of a contract comparison. */
export interface Change {
  contract: 'openapi' | 'graphql' | 'proto';
  /** What changed, in a form a retirement entry can name (e.g. `GET /v1/orders`, `Order.note`). */
  item: string;
  /** What happened and why it matters to a client. */
  message: string;
  breaking: boolean;
  /** A removal, which a recorded retirement may allow (docs/decisions.md §7). */
  removal?: boolean;
}
