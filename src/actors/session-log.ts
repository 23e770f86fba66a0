import type { Item } from '../items/item.js';
import type { ModelStepOutput, ToolCallOutput } from '../machines/step-actor-io.js';
import type { JournalEntry, SessionKey, SessionStore } from '../persistence/session-store.js';
import type { AuditEntry } from '../persistence/audit-log.js';

/** Turns a step's journal entry into the audit entries it records (set by the runtime). */
export type StepAuditor = (entry: JournalEntry) => AuditEntry[];

/** What one commit takes from the log. */
export interface Drained {
  items: Item[];
  journal: JournalEntry[];
  audit: AuditEntry[];
  /** Ids of the session's queued messages the commit takes (`SessionCommit.dequeued`). */
  dequeued: string[];
}

/**
 * The in-process view of one session's history and journal: what is committed plus what the
 * running steps produced since the last commit. Steps `record` their result here; the
 * committer `drain`s it into the next atomic save, so a step result and the snapshot that
 * moves past it land together (invariant 1).
 */
export class SessionLog {
  private readonly items: Item[];
  private pendingItems: Item[] = [];
  private pendingJournal: JournalEntry[] = [];
  private pendingAudit: AuditEntry[] = [];
  private pendingTaken: string[] = [];
  /** The queued messages this log took (pending, saving or committed): never taken twice. */
  private readonly taken = new Set<string>();
  /** Derives the audit entries of each recorded step (none until the runtime sets it). */
  auditor: StepAuditor | undefined;
  /** Drained into a save that has not finished yet: still part of the view. */
  private savingItems: Item[] = [];
  private savingJournal: JournalEntry[] = [];
  /** Items placed ahead of their position, released once every earlier one is there. */
  private readonly placed = new Map<number, Item>();
  /**
   * Journal entries known to be committed, by step: those of the restored run (read and
   * checked when the session was loaded) and those committed since. For a run started here
   * or restored, the store holds nothing else, so a step not found needs no read.
   */
  private readonly known = new Map<string, Map<number, JournalEntry>>();

  constructor(
    private readonly store: SessionStore,
    private readonly key: SessionKey,
    committed: Item[],
  ) {
    this.items = committed;
  }

  /** Number of items, committed and pending. */
  get length(): number {
    return this.items.length + this.savingItems.length + this.pendingItems.length;
  }

  /** Items from `from` to the end, committed and pending, oldest first. */
  view(from = 0): Item[] {
    const all =
      this.savingItems.length || this.pendingItems.length
        ? this.items.concat(this.savingItems, this.pendingItems)
        : this.items;
    return from === 0 ? all.slice() : all.slice(from);
  }

  /** The item at a history position, committed or pending; reads without copying the log. */
  at(position: number): Item | undefined {
    if (position < this.items.length) return this.items[position];
    const saving = position - this.items.length;
    if (saving < this.savingItems.length) return this.savingItems[saving];
    return this.pendingItems[saving - this.savingItems.length];
  }

  /** Appends items that belong to no step (the user's input). */
  append(items: Item[]): void {
    this.pendingItems.push(...items);
  }

  /**
   * Takes a message of the session's inbox: its items join the history and the commit that
   * writes them removes it from the inbox (the two together or neither).
   */
  take(id: string, items: Item[] = []): void {
    this.taken.add(id);
    this.pendingTaken.push(id);
    this.pendingItems.push(...items);
  }

  /** Whether queued messages were taken since the last drain (their items wait for a save). */
  takesPending(): boolean {
    return this.pendingTaken.length > 0;
  }

  /** Whether this log took the queued message `id`. */
  took(id: string): boolean {
    return this.taken.has(id);
  }

  /** Records a step's result and the items it adds to the conversation. */
  record(entry: JournalEntry, items: Item[] = []): void {
    this.pendingJournal.push(entry);
    this.pendingItems.push(...items);
    if (this.auditor) this.pendingAudit.push(...this.auditor(entry));
  }

  /** Audit entries for the next commit (a session action's, a human's decision). */
  audit(entries: readonly AuditEntry[]): void {
    this.pendingAudit.push(...entries);
  }

  /** Gives the pending audit entries without a run the id of the run an action started. */
  auditRun(runId: string): void {
    this.pendingAudit = this.pendingAudit.map((e) => (e.runId === undefined ? { ...e, runId } : e));
  }

  /**
   * Puts an item at a fixed history position (a parallel tool call's result goes where the
   * model's call order puts it, whatever order the calls finish in). An item whose position
   * the log already holds was placed before (a replayed step) and is ignored.
   */
  place(position: number, item: Item): void {
    if (position < this.length) return;
    this.placed.set(position, item);
    for (let next = this.placed.get(this.length); next; next = this.placed.get(this.length)) {
      this.placed.delete(this.length);
      this.pendingItems.push(next);
    }
  }

  /**
   * Notes that every committed journal entry of `runId` is `entries` (a run started here with
   * a new id has none; a restored one has what the store held when it was loaded).
   */
  knowRun(runId: string, entries: readonly JournalEntry[] = []): void {
    const steps = this.known.get(runId) ?? new Map<number, JournalEntry>();
    this.known.set(runId, steps);
    for (const entry of entries) steps.set(entry.step, entry);
  }

  /**
   * A step's journaled result: pending ones first, then committed ones. Answered at once when
   * the log knows the run (a step awaits it all the same, so it still yields there: no async
   * function's promise for what is in memory); read from the store otherwise.
   */
  find(runId: string, step: number): JournalEntry | undefined | Promise<JournalEntry | undefined> {
    const match = (e: JournalEntry) => e.runId === runId && e.step === step;
    const found =
      this.pendingJournal.find(match) ??
      this.savingJournal.find(match) ??
      this.known.get(runId)?.get(step);
    if (found || this.known.has(runId)) return found;
    return this.store.readJournal(this.key, runId, step);
  }

  /**
   * A sub-agent run's conversation after its input: what its journaled steps said (answers,
   * tool calls and their results), in step order. A sub-agent's items are not in the
   * session's history; its journal holds them once each, so a step writes no more than a
   * top-level one.
   */
  async runItems(runId: string): Promise<Item[]> {
    if (!this.known.has(runId)) {
      this.knowRun(runId, await this.store.readRunJournal(this.key, runId));
    }
    const steps = new Map(this.known.get(runId));
    for (const e of this.savingJournal.concat(this.pendingJournal)) {
      if (e.runId === runId) steps.set(e.step, e);
    }
    return [...steps.values()].sort((a, b) => a.step - b.step).flatMap(itemsOfStep);
  }

  /** Whether a tool call's journal entry waits for a commit (not handed to one yet). */
  pendingTool(): boolean {
    return this.pendingJournal.some((e) => e.kind === 'tool');
  }

  /** Hands pending writes to a commit. */
  drain(): Drained {
    const out = {
      items: this.pendingItems,
      journal: this.pendingJournal,
      audit: this.pendingAudit,
      dequeued: this.pendingTaken,
    };
    this.savingItems = this.savingItems.concat(out.items);
    this.savingJournal = this.savingJournal.concat(out.journal);
    this.pendingItems = [];
    this.pendingJournal = [];
    this.pendingAudit = [];
    this.pendingTaken = [];
    return out;
  }

  /**
   * Ends an action's use of the log when its session is kept live at rest: true (and the log
   * left as a restore of the stored session builds it: committed items only, no run known, no
   * auditor) when nothing waits for a save but audit entries of an action that changed nothing,
   * which are dropped as they are when a session is not kept; false when anything else waits.
   */
  rest(): boolean {
    const idle =
      this.pendingItems.length === 0 &&
      this.pendingJournal.length === 0 &&
      this.savingItems.length === 0 &&
      this.savingJournal.length === 0 &&
      this.pendingTaken.length === 0 &&
      this.placed.size === 0;
    if (!idle) return false;
    this.pendingAudit = [];
    this.known.clear();
    this.auditor = undefined;
    return true;
  }

  /** The committed items (the live array; callers must not modify it). */
  committedItems(): Item[] {
    return this.items;
  }

  /** Marks drained items (and the journal drained with them) as committed. */
  committed(items: Item[], journal: JournalEntry[] = []): void {
    this.items.push(...items);
    this.savingItems = this.savingItems.slice(items.length);
    this.savingJournal = this.savingJournal.filter((e) => !journal.includes(e));
    for (const e of journal) this.known.get(e.runId)?.set(e.step, e);
  }

  /** Puts drained writes back in front after a failed save, so nothing is silently lost. */
  restore(drained: Drained): void {
    this.savingItems = this.savingItems.slice(drained.items.length);
    this.savingJournal = this.savingJournal.filter((e) => !drained.journal.includes(e));
    this.pendingItems = drained.items.concat(this.pendingItems);
    this.pendingJournal = drained.journal.concat(this.pendingJournal);
    this.pendingAudit = drained.audit.concat(this.pendingAudit);
    this.pendingTaken = drained.dequeued.concat(this.pendingTaken);
  }
}

/** The conversation items a journaled step adds (approval and guardrail checks add none). */
export function itemsOfStep(entry: JournalEntry): Item[] {
  switch (entry.kind) {
    case 'model': {
      const out = entry.output as ModelStepOutput;
      const items: Item[] = [];
      if (out.text) items.push({ type: 'message', role: 'assistant', content: out.text });
      for (const { callId, name, arguments: args } of out.toolCalls) {
        items.push({ type: 'tool_call', callId, name, arguments: args });
      }
      return items;
    }
    case 'tool': {
      const result = (entry.output as ToolCallOutput).result;
      return result ? [result] : [];
    }
    case 'approval':
    case 'guardrail':
    case 'event': // a hosted app machine's entries, never in a run's journal
    case 'step':
      return [];
  }
}
