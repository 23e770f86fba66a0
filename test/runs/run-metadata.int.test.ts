import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunState, writeMetadata } from '../../src/index.js';
import { runScript } from '../helpers/child-process.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { metadataAgent } from '../helpers/metadata-agent.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 9, point 6: run and session metadata are stored and reach tools after a resume. */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const CHILD = 'test/helpers/metadata-child.ts';
const alice = { sessionId: 'refund-7', userId: 'alice' };

/** Resumes the approved RunState in a new process; returns what the tool saw there. */
async function resumeInChild(
  folder: string,
  dbPath: string,
  state: RunState,
  via: 'agent' | 'session',
): Promise<{ output: string; seen: Record<string, unknown>[] }> {
  const stateFile = join(folder, 'state.json');
  await writeFile(stateFile, JSON.stringify(state));
  const child = await runScript(CHILD, [dbPath, stateFile, via]);
  expect(child.stderr).toBe('');
  expect(child.code).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
    output: string;
    seen: Record<string, unknown>[];
  };
}

describe('run and session metadata survive a resume', () => {
  it("a tool resumed in a new process sees the run's tenant and the session's metadata", async () => {
    const { store, folder, path } = await temps.open();
    const { agent, seen } = metadataAgent(store);
    const paused = await agent.run('refund order 7', { ...alice, metadata: { tenant: 'acme' } });
    expect(paused.interruptionReason).toBe('approval');
    expect(seen.check).toEqual([{ tenant: 'acme' }]);
    // the app adds session metadata while the run waits for approval
    await agent.runtimeFor(store).execute(alice, writeMetadata({ region: 'eu', tenant: 'old' }));
    await store.close();

    const report = await resumeInChild(folder, path, paused.state, 'agent');
    expect(report.output).toBe('done');
    // the run's own metadata wins over the session's per key
    expect(report.seen).toEqual([{ tenant: 'acme', region: 'eu' }]);
  });

  it('an AgentSession resumes in a new process with the metadata of the session it was created with', async () => {
    const { store, folder, path } = await temps.open();
    const { agent } = metadataAgent(store);
    const session = await agent.createSession(
      { ...alice, metadata: { tenant: 'acme' } },
      { store },
    );
    const paused = await session.run('refund order 7');
    await session.close();
    await agent.runtimeFor(store).execute(alice, writeMetadata({ plan: 'pro' }));
    await store.close();

    // the child's AgentSession is created without metadata: what the tool sees was stored
    const report = await resumeInChild(folder, path, paused.state, 'session');
    expect(report.output).toBe('done');
    expect(report.seen).toEqual([{ tenant: 'acme', plan: 'pro' }]);
  });

  it("a resume's metadata overrides the stored run's per key, for that resume", async () => {
    const { store } = await temps.open();
    const { agent, seen } = metadataAgent(store);
    const paused = await agent.run('refund', { ...alice, metadata: { tenant: 'acme', team: 'a' } });
    const state = paused.state.approve(paused.interruptions[0]!.callId);
    await agent.resume(state, { metadata: { team: 'b' } });
    expect(seen.tool).toEqual([{ tenant: 'acme', team: 'b' }]);
  });

  it('metadata that is not plain JSON is a TypeError at the call, and nothing is stored', async () => {
    const { store } = await temps.open();
    const { agent } = metadataAgent(store);
    const before = await dumpBackend(store);
    expect(() => agent.run('x', { ...alice, metadata: { at: new Date(0) } })).toThrow(
      /"metadata" must be plain JSON/,
    );
    expect(() => agent.run('x', { ...alice, metadata: { n: Number.NaN } })).toThrow(TypeError);
    expect(() => agent.createSession({ ...alice, metadata: { f: () => 1 } }, { store })).toThrow(
      /"context.metadata" must be plain JSON/,
    );
    expect(await dumpBackend(store)).toEqual(before);
  });
});
