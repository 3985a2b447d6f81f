/**
 * The contract registry: the deprecated and watched items of a service's contracts (the format
 * `generated/deprecations.json` is written in) and the signals they send, the records of who used what, and
 * the signed evidence formats. Read at run time by the service and by the contract gate, so both agree on
 * what an item is and who used it. The matchers, which need graphql and @bufbuild/protobuf, are
 * `@order-api/contract-registry/matching` (./matching/index.ts).
 */
export { canonicalJson } from './canonical-json.js';
export { dayOf, daysBefore } from './days.js';
export {
  generatePrivateKeyPem,
  keyIdOf,
  parsePrivateKey,
  publicKeyPem,
  type Signed,
  signatureProblem,
  signDocument,
} from './evidence-signature.js';
export type {
  CallerSummary,
  ShapeCount,
  ShapeCoverage,
  ShapeProtocol,
  ShapeRecordReader,
  ShapeSignature,
  ShapeUse,
} from './records.js';
export {
  brownoutHeader,
  type DeprecationRegistry,
  describeItem,
  type GraphqlMatch,
  type GrpcMatch,
  type ItemDescription,
  type ItemState,
  isRealDate,
  type RegistryItem,
  type RestMatch,
  referenceLink,
  signalOf,
} from './registry.js';
export {
  type ExportedShape,
  SHAPE_EXPORT_FORMAT,
  type ShapeExport,
  type ShapeExportContent,
  shapeExportReader,
} from './shape-export.js';
export {
  type ExportBrownout,
  type ExportDay,
  heldBy,
  type IncompleteReason,
  incompleteReasons,
  MEASURED_DAY,
  quietDaysOf,
  USAGE_EXPORT_FORMAT,
  type UsageExport,
  type UsageExportContent,
  WINDOW_HITS,
} from './usage-export.js';
export type { EventItemIndex, EventTypeItems, PayloadMember, ReceivedItem, RequestUses } from './uses.js';
