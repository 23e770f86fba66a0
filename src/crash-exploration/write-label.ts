import type { JournalEntry, SessionCommit, SessionRecord } from '../persistence/session-store.js';
import { describeSession } from '../runs/session-view.js';

/** What one journal entry records, in a few words (`tool refund finished (call_1_0)`). */
function entryLabel(entry: JournalEntry): string {
  const output = entry.output as {
    toolCalls?: { name: string }[];
    callId?: string;
    result?: { name?: string };
    inDoubt?: { resolution?: string };
    rejected?: boolean;
  };
  if (entry.kind === 'model') {
    const calls = output.toolCalls ?? [];
    return calls.length > 0
      ? `model step ${entry.step} (asks ${calls.map((c) => c.name).join(', ')})`
      : `model step ${entry.step} (answers)`;
  }
  if (entry.kind === 'tool') {
    const name = output.result?.name ?? 'call';
    const how = output.rejected
      ? 'rejected'
      : output.inDoubt
        ? `in doubt, ${output.inDoubt.resolution ?? 'resolved'}`
        : 'finished';
    return `tool ${name} ${how} (${output.callId ?? `step ${entry.step}`})`;
  }
  return `${entry.kind} step ${entry.step}`;
}

/** The stored session's state and its run's, as the record says (`active.running / running.tools`). */
function stateLabel(record: SessionRecord): string {
  try {
    const view = describeSession(record);
    return view.run ? `${view.state} / run ${view.run.state}` : view.state;
  } catch {
    return 'unreadable snapshot';
  }
}

/**
 * Names a durable write of the runtime for a crash report: the store method, and for a save
 * what it makes durable (its journal entries, else the state it stores).
 */
export function writeLabel(method: string, args: readonly unknown[]): string {
  if (method === 'save' || method === 'create') {
    const commit = (method === 'save' ? args[0] : { record: args[0], journal: [] }) as Pick<
      SessionCommit,
      'record' | 'journal'
    >;
    const journal = commit.journal ?? [];
    const what =
      journal.length > 0 ? journal.map(entryLabel).join('; ') : stateLabel(commit.record);
    return `${method === 'create' ? 'session created' : 'save'}: ${what}`;
  }
  const names: Record<string, string> = {
    acquireLease: 'lease taken',
    renewLease: 'lease renewed',
    releaseLease: 'lease released',
    queueMessage: 'message queued',
    dropQueuedMessage: 'queued message dropped',
    submitDecisions: 'decisions submitted',
    dropDecisions: 'decisions dropped',
    dropStaleDeadline: 'stale deadline dropped',
    purge: 'session purged',
  };
  return names[method] ?? method;
}
