import type { InspectorInfo, MachineCharts } from './api-types.js';
import type { PageState } from './page-state.js';

/**
 * The page as its views see it: what the server said once (`info`, `machines`), the state
 * that changes, and the navigation the views trigger (wired once, in `main.ts`, so no view
 * imports another view).
 */
export interface Page {
  readonly info: InspectorInfo;
  readonly machines: MachineCharts;
  readonly state: PageState;
  /** Reads (or, with `more`, reads on) the sessions list and renders it. */
  loadSessions(more?: boolean): Promise<void>;
  /** Opens a session with its newest run. */
  openSession(sessionId: string): Promise<void>;
  /** Shows another run of the open session. */
  openRun(runId: string): Promise<void>;
  /** Reads (or, with `more`, reads on) the workflow instances and renders their list. */
  loadWorkflows(more?: boolean): Promise<void>;
  /** Opens a workflow instance: its chart, path, steps and nested sessions. */
  openWorkflow(id: string): Promise<void>;
  /** Shows the user's memory across sessions (of one `resource` of theirs, or all of it). */
  openMemory(resource?: string): Promise<void>;
  /** Shows the user's schedules, with `note` (what an action on one did) above them. */
  openSchedules(note?: string): Promise<void>;
  /** Shows the eval runs the store holds for the page's user (or, with `id`, one's report). */
  openEvals(id?: string): Promise<void>;
  /** (Re)connects the live feed for the page's user. */
  startLive(): void;
}
