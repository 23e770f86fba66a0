import type { WritersReport } from '../../src/writer-simulation/writers-report.js';

/** How many findings a many-writers report holds, over every list the tests expect empty. */
export const findingsOf = (report: WritersReport): number =>
  report.forkedHistories.length +
  report.staleWrites.length +
  report.lostMessages.length +
  report.doubledMessages.length +
  report.lostApprovals.length +
  report.stuckCalls.length;
