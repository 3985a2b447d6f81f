/**
 * Every changed meaning is named. A differ sees a rewritten description, example,
 * default, format or constraint, but not whether the new text changes what clients may rely on; the
 * changelog must say. So each item whose meaning text changed, and each added item, must be named in
 * backticks in a changelog bullet of its contract, or the gate refuses it:
 * `[description-changed-unnamed]`, `[addition-unnamed]`.
 *
 * An item is named by any of its forms (`Order.amount`, `rest.Order.amount`; `GET /v1/orders`,
 * `listOrders`), or by one bullet naming both its parent and its own short name (``- REST: `rateLimit` on
 * `ApiKey` …``). An added item covers everything inside it (a new schema its properties, a new operation
 * its parameters and responses); a parameter, response or header that refers to a shared component is
 * named by that component's name too (``every `/v1` operation documents `429` (`TooManyRequests`)``).
 * The forms per contract are listed in contracts/CHANGELOG.md ("How to write an entry").
 */
import type { Changelog } from './changelog.js';
import { CONTRACT_LABEL } from './changelog.js';
import type { Change, Contracts, MeaningItem } from './model.js';
import { graphqlItems } from './named-items-graphql.js';
import { openapiItems } from './named-items-openapi.js';
import { protoItems } from './named-items-proto.js';

/** An item whose meaning text changed, or that was added. */
export interface MeaningChange extends MeaningItem {
  contract: Change['contract'];
  kind: 'added' | 'changed';
  /** The attributes whose text changed (for `changed`). */
  changed: string[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function compare(contract: Change['contract'], base: MeaningItem[], head: MeaningItem[]): MeaningChange[] {
  const before = new Map(base.map((item) => [item.key, item]));
  const added = new Set(head.filter((item) => !before.has(item.key)).map((item) => item.key));
  return head.flatMap((item): MeaningChange[] => {
    const old = before.get(item.key);
    if (!old) {
      if (item.parentKey && added.has(item.parentKey)) return [];
      return [{ ...item, contract, kind: 'added', changed: [] }];
    }
    const attributes = [...new Set([...Object.keys(old.text), ...Object.keys(item.text)])];
    const changed = attributes.filter((key) => !same(old.text[key], item.text[key]));
    return changed.length > 0 ? [{ ...item, contract, kind: 'changed', changed }] : [];
  });
}

/** The items of the three contracts whose meaning text changed or that were added, head against base. */
export function meaningChanges(base: Contracts, head: Contracts): MeaningChange[] {
  return [
    ...compare('openapi', openapiItems(base.openapi), openapiItems(head.openapi)),
    ...compare('graphql', graphqlItems(base.graphql), graphqlItems(head.graphql)),
    ...compare('proto', protoItems(base.proto), protoItems(head.proto)),
  ];
}

/** Whether a bullet of the item's contract names it. */
export function isNamed(changelog: Changelog, change: MeaningChange): boolean {
  return changelog.unreleased.some((entry) => {
    if (!entry.contracts.includes(change.contract)) return false;
    const items = new Set(entry.items.map((name) => name.trim()));
    if (change.names.some((name) => items.has(name))) return true;
    const { within } = change;
    return Boolean(within?.parents.some((name) => items.has(name)) && within.leaf.some((name) => items.has(name)));
  });
}

/** The naming rule: a finding for each changed or added item no bullet of its contract names. */
export function checkNamed(changelog: Changelog, changes: MeaningChange[]): Change[] {
  return changes
    .filter((change) => !isNamed(changelog, change))
    .map((change) => {
      const label = CONTRACT_LABEL[change.contract];
      const what =
        change.kind === 'added'
          ? 'is added'
          : `changed its ${change.changed.join(', ')}${change.changed.length > 1 ? ' text' : ''}`;
      return {
        contract: change.contract,
        item: change.item,
        rule: change.kind === 'added' ? 'addition-unnamed' : 'description-changed-unnamed',
        message:
          `\`${change.item}\` ${what}, and no ${label} bullet under "## [Unreleased]" in contracts/CHANGELOG.md ` +
          `names it in backticks (as \`${change.names[0]}\`${change.names.length > 1 ? `, \`${change.names[1]}\`` : ''}, …)`,
        breaking: true,
      };
    });
}
