/**
 * The contract gate: compares a project's three contracts (OpenAPI, GraphQL SDL, Protobuf) with their last
 * release in git history and fails on a breaking change; checks the changelog, the recorded retirements and
 * their signed evidence; names the callers a change would break; builds the deprecation registry and lints
 * the contracts. The CLIs under ./cli are what `npm run contracts:*` runs; this is what a project's own code
 * and tests use.
 */
export { type CallerCount, callerCountLines, callerCounts } from './breaking/caller-counts.js';
export { checkChangelog, parseChangelog, stampRelease } from './breaking/changelog.js';
export {
  type Finding,
  type GateInput,
  type GateResult,
  type Retirement,
  readContracts,
  runGate,
} from './breaking/gate.js';
export { HistoryError, readReleaseHistory } from './breaking/git-history.js';
export { gateHistory } from './breaking/history-gate.js';
export type { Contracts } from './breaking/model.js';
export { diffProto } from './breaking/proto-diff.js';
export { makeRelease, ReleaseRefused } from './breaking/release.js';
export { historyOf, type ReleaseHistory, type ReleaseInfo, releaseFromDirectory } from './breaking/release-history.js';
export { checkRetirement } from './breaking/retirement.js';
export { analyzeImpact } from './impact/analyze.js';
export { impactTable } from './impact/impact-table.js';
export { readShapeExport, type ShapeReader } from './impact/shape-callers.js';
export {
  type GateProject,
  type LiveRecord,
  type LiveRecords,
  type LoadedProject,
  loadProject,
  PROJECT_FILE,
  type Twin,
  type TwinLookup,
  twinLookup,
} from './project.js';
export { buildRegistry } from './registry/build-registry.js';
export { graphqlRules, openapiRules, protoRules, type Rules, rulesOf } from './rules/contract-rules.js';
export { graphqlInputRules } from './rules/graphql-rules.js';
