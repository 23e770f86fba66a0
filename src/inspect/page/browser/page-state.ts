import type { RunDetail, SessionDetail, SessionSummary } from './api-types.js';
import type { WorkflowDetail, WorkflowSummary } from './workflow-api-types.js';
import type { FeedEntry } from './feed-entry.js';
import type { ListFilters } from './list-filters.js';

/** What the page holds between renders: the filters, the open session and run, the inputs. */
export interface PageState {
  /** The user whose sessions the page shows (`''`: the inspector's own). */
  user: string;
  /** The status filter (`''`: any). */
  status: string;
  /** The list's other filters and order (`list-filters.ts`). */
  list: ListFilters;
  sessions: SessionSummary[];
  /** The cursor of the next page of sessions, if there is one. */
  cursor: string | null;
  /** The cursors of the pages shown before this one (`null`: the first page), and this one's. */
  pages: (string | null)[];
  pageCursor: string | null;
  pageSize: number;
  /** How many list reads were asked: an answer to an older one is dropped. */
  listAsked: number;
  /** The pending read of the list again after live frames. */
  listTimer: ReturnType<typeof setTimeout> | null;
  /** The list's slow reading again, for sessions that send no live frame (another process's). */
  listPoll: ReturnType<typeof setInterval> | null;
  /** The open session's live feed, oldest first (`feed-entry.ts`). */
  feed: FeedEntry[];
  /** The feed line whose step the user went to, marked again after a redraw, and its watch. */
  stepTarget: FeedEntry | null;
  targetWatch: MutationObserver | null;
  /** The session the user opened last. */
  selected: string | null;
  /** The session shown, with its run (`runId`, `run`). */
  detail: SessionDetail | null;
  runId: string | null;
  run: RunDetail | null;
  /** The live feed's connection. */
  live: EventSource | null;
  /** The pending refresh of the open session after live frames. */
  refreshTimer: ReturnType<typeof setTimeout> | null;
  /** The last error and the last action's result, shown again after a re-render. */
  error: string;
  result: string;
  /** How many reads were asked: an answer to an older one is dropped. */
  asked: number;
  /** What the user typed in the fork fields (kept across a live refresh). */
  forkId: string;
  forkAt: string;
  /** The workflow instances listed (the app's workflow hosts' instances), and the next page's cursor. */
  workflows: WorkflowSummary[];
  workflowCursor: string | null;
  /** The workflow instance shown instead of a session, and its detail. */
  workflowId: string | null;
  workflow: WorkflowDetail | null;
  /** The hop of its path picked for time travel (an index in its path), or none: now. */
  travel: number | null;
}

/** The state of a page just loaded, for `user`. */
export function newPageState(user: string): PageState {
  return {
    user,
    status: '',
    list: { run: '', agent: '', text: '', sort: 'id' },
    sessions: [],
    cursor: null,
    pages: [],
    pageCursor: null,
    pageSize: 50,
    listAsked: 0,
    listTimer: null,
    listPoll: null,
    feed: [],
    stepTarget: null,
    targetWatch: null,
    selected: null,
    detail: null,
    runId: null,
    run: null,
    live: null,
    refreshTimer: null,
    error: '',
    result: '',
    asked: 0,
    forkId: '',
    forkAt: '',
    workflows: [],
    workflowCursor: null,
    workflowId: null,
    workflow: null,
    travel: null,
  };
}

/** The session on the page (the one its buttons act on). */
export function shown(state: PageState): string {
  if (!state.detail) throw new Error('No session is open');
  return state.detail.session.sessionId;
}
