import type { LiveFrame } from './api-types.js';

/** One line of the open session's live feed: a step or a state in words, and where it points. */
export interface FeedEntry {
  text: string;
  /** The run it is about (a sub-agent's run too), and the journal step of a step's line. */
  runId?: string | undefined;
  step?: number | undefined;
  /** Which actor said it: a run's or the session's line is kept only when it says something new. */
  from: string;
}

/** How many lines the feed keeps (the oldest go first). */
export const FEED_LINES = 300;

/**
 * The feed line of a frame of the open session, or nothing: frames without words (events,
 * snapshots that change nothing a person follows) and a run's or the session's state said
 * again (each of its events sends its snapshot anew).
 */
export function feedEntryOf(frame: LiveFrame, feed: readonly FeedEntry[]): FeedEntry | undefined {
  if (!frame.text) return undefined;
  const from = frame.step === undefined ? `${frame.src}:${frame.runId ?? ''}` : 'step';
  if (from !== 'step') {
    const last = [...feed].reverse().find((e) => e.from === from);
    if (last && last.text === frame.text) return undefined;
  }
  return { text: frame.text, runId: frame.runId, step: frame.step, from };
}

/** The feed with `entry` added last, the oldest dropped past `FEED_LINES`. */
export function withEntry(feed: FeedEntry[], entry: FeedEntry): FeedEntry[] {
  const next = feed.concat(entry);
  return next.length > FEED_LINES ? next.slice(next.length - FEED_LINES) : next;
}
