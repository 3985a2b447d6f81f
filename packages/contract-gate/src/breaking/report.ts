import type { GateResult } from './gate.js';
import type { Change } from './model.js';

const CONTRACT_LABEL_OF: Record<Change['contract'], string> = { openapi: 'REST', graphql: 'GraphQL', proto: 'gRPC' };

const RETIRE =
  'deprecate it first (OpenAPI `deprecated: true` + `x-sunset`, GraphQL `@deprecated`, proto `reserved`), ' +
  'measure its use down to zero, then record the retirement in contracts/retirements.yaml';
const ADD =
  'keep the old form and add the new one beside it under a new name (a new member, optional parameter or operation), ' +
  'or cut a version: publish the change under a new path prefix (/v2)';
const VERSION = 'this needs a version cut: publish it under a new path prefix (/v2) and keep /v1 as it is';

/** The way through for a blocked change, by rule. */
export function wayThrough(change: Change): string {
  if (change.acknowledge === 'Stated')
    return `the last release states this rule for a twin of \`${change.item}\` in another contract, so the server already refused those values: name \`${change.item}\` in a ${CONTRACT_LABEL_OF[change.contract]} bullet under "### Security", or in a "[docs]" bullet, of "## [Unreleased]" in contracts/CHANGELOG.md`;
  if (change.acknowledge === 'Security')
    return `if the bound protects the service and is at or above what clients send today, acknowledge it: name \`${change.item}\` in a ${CONTRACT_LABEL_OF[change.contract]} bullet under "### Security" of "## [Unreleased]" in contracts/CHANGELOG.md`;
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

/** Prints one comparison of the gate; returns the number of blocking findings. */
export function printComparison(result: GateResult, heading: string, { quiet = false } = {}): number {
  console.log(`${heading}\n`);
  if (quiet && result.blocking.length === 0) return 0;
  for (const contract of ['openapi', 'graphql', 'proto'] as const) {
    const mine = result.findings.filter((finding) => finding.contract === contract);
    const blocking = mine.filter((finding) => result.blocking.includes(finding));
    const passed = mine.filter((finding) => finding.retiredBy || finding.acknowledged);
    const additive = mine.filter((finding) => !finding.breaking);
    console.log(
      `${contract}: ${blocking.length} breaking, ${passed.length} retired or acknowledged, ${additive.length} non-breaking`,
    );
    for (const finding of blocking) {
      console.log(`  BREAKING  [${finding.rule}] ${finding.message}`);
      if (finding.refused) console.log(`            retirement refused: ${finding.refused}`);
      console.log(`            way through: ${wayThrough(finding)}`);
    }
    for (const finding of passed) {
      const r = finding.retiredBy;
      console.log(
        r
          ? `  RETIRED   ${finding.message} (${r.registryItem}: deprecated ${r.verdict.deprecated}, sunset ${r.verdict.sunset}, ` +
              `${r.verdict.quietDays} quiet days measured to ${r.verdict.measuredTo} in ${r.evidence})`
          : `  ACKED     ${finding.message} (named in the changelog)`,
      );
    }
    if (!quiet) for (const finding of additive) console.log(`  ok        [${finding.rule}] ${finding.message}`);
  }
  console.log('');
  return result.blocking.length;
}
