import { contentText, type Item } from '../items/item.js';
import { canonicalItem, type WriteLog } from './write-log.js';

/** One thing the simulation found wrong, with where. */
export interface WriterFinding {
  sessionId: string;
  /** The worker whose write or send it is, when one is. */
  worker?: number | undefined;
  /** The version a save wrote, for a fork or a stale write. */
  version?: number | undefined;
  messageId?: string | undefined;
  /** What was seen, in a sentence. */
  detail: string;
}

/** What one seed of `simulateWriters` found: each list empty when the store and runtime hold. */
export interface WritersReport {
  seed: number;
  operations: number;
  /** Saves (and creates) the store accepted. */
  saves: number;
  /**
   * Two accepted saves of one session at the same version, or a save whose items the final
   * history does not hold where it wrote them.
   */
  forkedHistories: WriterFinding[];
  /** An accepted save from a writer whose lease had been taken over (a newer token granted). */
  staleWrites: WriterFinding[];
  /** A message whose send was acknowledged (answered or queued) that the final history lacks. */
  lostMessages: WriterFinding[];
  /** A message the final history holds twice (two user items for one message id). */
  doubledMessages: WriterFinding[];
  /** A call whose approval was acknowledged that the final history holds no result of. */
  lostApprovals: WriterFinding[];
  /**
   * A call (a send, a cancel, a resume) whose caller never heard back: still waiting when every
   * worker was idle and the drain was over (a waiter nobody will answer).
   */
  stuckCalls: WriterFinding[];
}

/** Each session at the end of a seed: its history, and the texts still in its message inbox. */
export type FinalSessions = ReadonlyMap<
  string,
  { items: readonly Item[]; queued: readonly string[] }
>;

/** Reads the findings of one seed from what was observed and the final histories. */
export function writersVerdict(
  seed: number,
  operations: number,
  log: WriteLog,
  finals: FinalSessions,
  stuckCalls: WriterFinding[] = [],
): WritersReport {
  const forkedHistories: WriterFinding[] = [];
  const staleWrites: WriterFinding[] = [];
  const versions = new Map<string, number>();
  for (const save of log.saves) {
    const { sessionId, worker, version } = save;
    const at = `${sessionId}@${version}`;
    const twice = (versions.get(at) ?? 0) + 1;
    versions.set(at, twice);
    if (twice === 2) {
      forkedHistories.push({
        sessionId,
        worker,
        version,
        detail: `two saves wrote version ${version}`,
      });
    }
    const final = (finals.get(sessionId)?.items ?? []).slice(
      save.start,
      save.start + save.items.length,
    );
    if (final.map(canonicalItem).join('\n') !== save.items.join('\n')) {
      forkedHistories.push({
        sessionId,
        worker,
        version,
        detail: `the final history does not hold the items version ${version} wrote at ${save.start}`,
      });
    }
    if (save.leaseToken !== undefined && save.leaseToken < save.newestGrant) {
      staleWrites.push({
        sessionId,
        worker,
        version,
        detail: `written with lease token ${save.leaseToken} after token ${save.newestGrant} was granted`,
      });
    }
  }
  const lostMessages: WriterFinding[] = [];
  const doubledMessages: WriterFinding[] = [];
  const acknowledged = new Set<string>();
  for (const send of log.sends)
    if (send.outcome !== 'unacknowledged') acknowledged.add(send.messageId);
  const seen = new Set<string>();
  for (const send of log.sends) {
    const { sessionId, messageId, worker } = send;
    if (seen.has(messageId)) continue;
    seen.add(messageId);
    const held = (finals.get(sessionId)?.items ?? []).filter(
      (item) =>
        item.type === 'message' && item.role === 'user' && contentText(item.content) === send.text,
    ).length;
    if (held === 0 && acknowledged.has(messageId)) {
      lostMessages.push({
        sessionId,
        worker,
        messageId,
        detail: finals.get(sessionId)?.queued.includes(send.text)
          ? 'acknowledged (answered or queued) but still in the inbox after the drain, never answered'
          : 'acknowledged (answered or queued) but neither in the final history nor in the inbox',
      });
    } else if (held > 1) {
      doubledMessages.push({
        sessionId,
        worker,
        messageId,
        detail: `in the final history ${held} times`,
      });
    }
  }
  const lostApprovals: WriterFinding[] = [];
  for (const { sessionId, worker, callId } of log.approvals) {
    const items = finals.get(sessionId)?.items ?? [];
    if (!items.some((item) => item.type === 'tool_result' && item.callId === callId)) {
      const detail = `call ${callId} approved, but the final history holds no result of it`;
      lostApprovals.push({ sessionId, worker, detail });
    }
  }
  return {
    seed,
    operations,
    saves: log.saves.length,
    forkedHistories,
    staleWrites,
    lostMessages,
    doubledMessages,
    lostApprovals,
    stuckCalls,
  };
}
