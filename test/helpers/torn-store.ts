import { LevelSessionStore, type SessionRecord } from '../../src/index.js';
import { type JournalEntry, type SessionCommit } from '../../src/store.js';

/**
 * A LevelDB store that "loses power" in the middle of the save that journals a chosen step:
 * the journal entry and its history items land, but the snapshot stays the previous one (so
 * it still shows the step in flight, as a save coalesced just before the step's completion
 * reached the machine would). Every later save fails.
 */
export class TornStore extends LevelSessionStore {
  crashed = false;
  constructor(
    path: string,
    private readonly tearOn: (entry: JournalEntry) => boolean,
  ) {
    super({ path });
  }

  override async save(commit: SessionCommit): Promise<SessionRecord> {
    if (this.crashed) throw new Error('power is out');
    if (!commit.journal.some(this.tearOn)) return super.save(commit);
    this.crashed = true;
    const stored = await this.load(commit.record);
    await super.save({
      record: { ...stored, historyLength: stored.historyLength + commit.items.length },
      items: commit.items,
      journal: commit.journal,
    });
    throw new Error('power cut right after the journal was written');
  }
}
