/**
 * Usage of deprecated items: the recorder of each use and the callers it names.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export {
  type CallerReport,
  type CallerSummary,
  type Counts,
  callerReports,
  stillUsing,
} from './deprecation-callers.js';
export type { UsageRecorder } from './usage-recorder.js';
