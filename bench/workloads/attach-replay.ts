/**
 * Attach (issue 31): attach to a session of 500 messages and receive its last run's events
 * (`agent.attach`; the run ended, so all of them come from the store: the session's view, the
 * run's journal, the events rebuilt from it), timed against reading that run's journal alone
 * (`store.readRunJournal`). The ratio is what attach adds to the one read it cannot do without;
 * times alone mean little on a loaded machine.
 */
import { join } from 'node:path';
import { LevelSessionStore } from '../../src/index.js';
import { tempDir, writeLongSession } from '../fixtures.js';
import { median, now } from '../stats.js';
import { rowsOf, type Row } from '../table.js';

export interface AttachReplayRun {
  /** The last run's events an attach receives. */
  events: number;
  /** Median over the rounds of one run: attach, all its events received. */
  attachMs: number;
  /** Median over the same rounds: the run's journal read alone. */
  journalMs: number;
}

const KEY = { sessionId: 'long', userId: 'bench' };

/** Writes the session once, then `runs` runs of `rounds` attaches and journal reads each. */
export async function runAttachReplay(
  sizes: { messages: number; rounds: number },
  runs: number,
  log: (message: string) => void,
): Promise<AttachReplayRun[]> {
  const dir = await tempDir('agentstate-bench-attach-');
  const store = await LevelSessionStore.open({ path: join(dir.path, 'db') });
  try {
    log(`attach: a session of ${sizes.messages} messages`);
    const agent = await writeLongSession(store, KEY, sizes.messages);
    const runId = (await agent.runtimeFor(store).getSession(KEY)).lastRun!.runId;
    const out: AttachReplayRun[] = [];
    for (let run = 0; run < runs; run++) {
      log(`attach: ${sizes.rounds} rounds, run ${run + 1}/${runs}`);
      const attach: number[] = [];
      const journal: number[] = [];
      let events = 0;
      for (let round = 0; round < sizes.rounds; round++) {
        let started = now();
        events = 0;
        for await (const _event of agent.attach(KEY.sessionId, { userId: KEY.userId })) events++;
        attach.push(now() - started);
        started = now();
        await store.readRunJournal(KEY, runId);
        journal.push(now() - started);
      }
      out.push({ events, attachMs: median(attach), journalMs: median(journal) });
    }
    return out;
  } finally {
    await store.close();
    await dir.cleanup();
  }
}

/** `npm run bench -- --attach`: the part's runs (small with `--smoke`) and its rows. */
export async function attachPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<{ kind: string; rows: Row[]; targets: []; raw: { attach: AttachReplayRun[] } }> {
  const sizes = config.smoke ? { messages: 20, rounds: 5 } : { messages: 500, rounds: 21 };
  const attach = await runAttachReplay(sizes, config.runs, log);
  return { kind: 'attach', rows: attachRows(attach, sizes.messages), targets: [], raw: { attach } };
}

/** The table's rows of the attach part. */
function attachRows(runs: AttachReplayRun[], messages: number): Row[] {
  return rowsOf(`Attach: a session of ${messages} messages, its last run's events`, runs, [
    ['events received', 'count', (r) => r.events],
    ['attach, every event received', 'ms', (r) => r.attachMs],
    ['read its journal alone', 'ms', (r) => r.journalMs],
    ['  attach / journal', 'x', (r) => r.attachMs / r.journalMs],
  ]);
}
