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
  /** A risky change that passes once the changelog entry names its item (graphql-inspector's "dangerous"). */
  acknowledge?: boolean;
}

const RETIRE =
  'deprecate it first (OpenAPI `deprecated: true` + `x-sunset`, GraphQL `@deprecated`, proto `reserved`), ' +
  'measure its use down to zero, then record the retirement in contracts/retirements.yaml';
const ADD =
  'keep the old form and add the new one beside it under a new name (a new member, optional parameter or operation), ' +
  'or cut a version: publish the change under a new path prefix (/v2)';
const VERSION = 'this needs a version cut: publish it under a new path prefix (/v2) and keep /v1 as it is';

/** The way through for a blocked change, by rule. */
export function wayThrough(change: Change): string {
  if (change.acknowledge)
    return `acknowledge it: name \`${change.item}\` in a GraphQL entry under "## [Unreleased]" in contracts/CHANGELOG.md`;
  if (change.removal) return RETIRE;
  if (change.rule.startsWith('security')) return VERSION;
  if (change.rule === 'response-enum-value-added')
    return 'declare the enum open with `x-extensible-enum: true` in a release before adding values, or add a new member for the new values, or cut a version';
  if (change.rule === 'description-changed-unnamed' || change.rule === 'addition-unnamed')
    return `name \`${change.item}\` in backticks in a bullet of its contract under "## [Unreleased]" in contracts/CHANGELOG.md (a wording-only change under "### Changed" with [docs])`;
  if (change.rule.startsWith('changelog')) return 'edit contracts/CHANGELOG.md as the message says';
  if (change.contract === 'graphql')
    return 'add the new form beside the old one under a new field, argument or type name, and deprecate the old one';
  if (change.contract === 'proto')
    return 'add a new field or rpc with a new number or name (retire the old one with `reserved` later), or publish a new package (inventory.v2)';
  return ADD;
}
