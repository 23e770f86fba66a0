import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { killLiveWorkers } from '../helpers/crash-driver.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { crashedFolder } from '../helpers/crashed-folder.js';
import { runInFlight, writePausedAndFailed } from '../helpers/run-status-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 26 in the inspector's HTTP API (what its page reads): each session's run status
 * (running, crashed, paused and why, failed with its error), its usage so far, and the same
 * in a session's detail and its runs.
 */
const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  killLiveWorkers();
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

interface Listed {
  sessionId: string;
  pendingApprovals: number;
  usageSoFar: { inputTokens: number; outputTokens: number };
  runStatus?: { status: string; error?: { code: string } };
}

const alice = (sessionId: string) => ({ sessionId, userId: 'alice' });

/**
 * A folder holding the crash worker's session (its process SIGKILLed mid-run) and alice's
 * `paused` (an approval, 120 tokens so far) and `failed` (an invalid output); an inspector of
 * every user on it, served from this process.
 */
async function inspected() {
  const store = await LevelSessionStore.open({ path: await crashedFolder(await temps.folder()) });
  temps.defer(() => store.close());
  const pausing = await writePausedAndFailed(store);
  const inspector = await startInspector({ runtime: pausing.runtimeFor(store), allUsers: true });
  open.push(inspector);
  return { store, pausing, client: inspectorClient(inspector) };
}

describe('inspector API: run status, reasons and usage so far', () => {
  it('lists each session with its run status and usage so far: crashed, awaitingApproval, failed with its code', async () => {
    const { client } = await inspected();
    const crashedList = (await client.get('/api/sessions?user=u')).json as { sessions: Listed[] };
    expect(crashedList.sessions).toEqual([
      expect.objectContaining({
        sessionId: 'crash',
        runStatus: expect.objectContaining({ status: 'crashed' }) as unknown,
      }),
    ]);
    const list = (await client.get('/api/sessions?user=alice')).json as { sessions: Listed[] };
    const byId = Object.fromEntries(list.sessions.map((s) => [s.sessionId, s]));
    expect(byId['paused']).toMatchObject({
      status: 'active',
      pendingApprovals: 1,
      usage: { inputTokens: 0, outputTokens: 0 },
      usageSoFar: { inputTokens: 100, outputTokens: 20 },
      runStatus: { status: 'awaitingApproval', interruption: 'approval' },
    });
    expect(byId['failed']).toMatchObject({
      status: 'active',
      runStatus: { status: 'failed', error: { code: 'OUTPUT_VALIDATION' } },
    });
  }, 60_000);

  it("a session's detail and its run say why: the failed run's error, the crashed run's status", async () => {
    const { client } = await inspected();
    const failed = (await client.get('/api/sessions/failed?user=alice')).json as {
      session: { runStatus: { status: string; error: { code: string; message: string } } };
      runs: { runId: string; status: string; error?: { code: string } }[];
    };
    expect(failed.session.runStatus).toMatchObject({
      status: 'failed',
      error: { code: 'OUTPUT_VALIDATION', message: expect.stringContaining('JSON') as string },
    });
    expect(failed.runs[0]).toMatchObject({
      status: 'failed',
      error: { code: 'OUTPUT_VALIDATION' },
    });
    const run = (await client.get(`/api/sessions/failed/runs/${failed.runs[0]!.runId}?user=alice`))
      .json as { runStatus: { status: string } };
    expect(run.runStatus).toMatchObject({ status: 'failed' });

    const crashed = (await client.get('/api/sessions/crash?user=u')).json as {
      session: {
        runStatus: { status: string };
        usageSoFar: { turns: number };
        usage: { turns: number };
      };
      runs: { status: string; current: boolean }[];
    };
    expect(crashed.session.runStatus.status).toBe('crashed');
    expect(crashed.runs[0]).toMatchObject({ status: 'crashed', current: true });
    expect(crashed.session.usageSoFar.turns).toBeGreaterThan(crashed.session.usage.turns);
  }, 60_000);

  it('a run in flight in the inspector’s own process reads as running, not crashed', async () => {
    const { store, client } = await inspected();
    const live = await runInFlight(store, alice('live'));
    const detail = (await client.get('/api/sessions/live?user=alice')).json as {
      session: { runStatus: { status: string } };
    };
    expect(detail.session.runStatus.status).toBe('running');
    await live.finish();
  }, 60_000);
});
