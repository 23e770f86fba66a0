import type { ReplayFile } from '../models/replay-file.js';

/**
 * The trajectory a row records for its run: the run chart's transitions it took
 * (`trajectoryOf`, written with the scorers). Until that lands, empty.
 */
export function recordedTrajectory(replay: ReplayFile): string[] {
  void replay;
  return [];
}
