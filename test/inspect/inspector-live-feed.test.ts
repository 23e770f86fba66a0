import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { MAX_BUFFERED_BYTES } from '../../src/inspect/live-feed.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { nextImmediate } from '../helpers/async.js';
import { liveStream, stalledStream } from '../helpers/inspector-client.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** An inspector of a chatty agent on the in-memory store: each run streams a few KB of frames. */
async function chatty() {
  const store = new MemorySessionStore();
  const agent = new Agent({
    name: 'chatty',
    model: new ScriptedModel(() => ({ text: 'ok' })),
    store,
  });
  const inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: 'ann' });
  open.push(inspector);
  return { agent, inspector };
}

const auth = (inspector: InspectorHandle) => ({ 'x-agentstate-token': inspector.token });

describe('inspector live feed under a client that does not read', () => {
  it('holds a bounded number of bytes for a stalled stream, then drops it, while a reading stream keeps up', async () => {
    const { agent, inspector } = await chatty();
    const reader = liveStream(inspector);
    open.push(reader);
    await reader.opened();
    const stalled = await stalledStream(inspector, auth(inspector));
    open.push(stalled);

    // runs until the server has sent the reading page 8 MB of frames; what it holds for the
    // stalled stream never passes the cap (plus a frame), and it closes that stream
    const total = 8 * 1024 * 1024;
    let held = 0;
    let dropped = false;
    for (let i = 0; reader.text.length < total; i++) {
      await agent.run('hi', { sessionId: `c${i % 20}`, userId: 'ann' });
      await nextImmediate(); // the in-memory store never waits for I/O: let the sockets move
      const buffered = stalled.serverBuffered();
      if (buffered === undefined) dropped = true;
      held = Math.max(held, buffered ?? 0);
    }
    expect(dropped).toBe(true);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(MAX_BUFFERED_BYTES + 4096);
    await agent.run('last', { sessionId: 'last', userId: 'ann' });
    await reader.until((text) => text.includes('"sessionId":"last"'));
    // what the stalled client gets when it reads again: what the kernel's socket buffers held
    // (a few MB on loopback) and no more, then the end of the stream
    const got = await stalled.drain(reader.text.length - 64 * 1024);
    expect(got.closed).toBe(true);
    expect(got.bytes).toBeLessThan(total * 0.75);
  }, 120_000);

  it('serves at most 16 live streams at a time: one more is a 503, and a closed one frees its place', async () => {
    const { inspector } = await chatty();
    const streams = Array.from({ length: 16 }, () => liveStream(inspector));
    open.push(...streams);
    await Promise.all(streams.map((s) => s.opened()));
    const refused = liveStream(inspector);
    open.push(refused);
    expect(await opensOrEnds(refused)).toBe(false);
    expect(errorCode(JSON.parse(refused.text))).toBe('TOO_MANY_STREAMS');
    streams[0]!.close();
    // the server sees the close a few turns of the event loop later
    let next = liveStream(inspector);
    open.push(next);
    for (let tries = 0; !(await opensOrEnds(next)); tries++) {
      expect(tries).toBeLessThan(100);
      await nextImmediate();
      next = liveStream(inspector);
      open.push(next);
    }
    expect(next.text.startsWith(': live')).toBe(true);
  });
});

const errorCode = (json: unknown) => (json as { error: { code: string } }).error.code;

/** Whether a live stream opened (true) or was refused (false). */
async function opensOrEnds(stream: ReturnType<typeof liveStream>): Promise<boolean> {
  await stream.until((text) => text.length > 0);
  return stream.text.startsWith(': live');
}
