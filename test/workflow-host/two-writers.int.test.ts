import { afterEach, describe, expect, it } from 'vitest';
import { JsonLineChild, type ChildEvent } from '../helpers/json-line-child.js';
import { usePostgres } from '../helpers/postgres-tests.js';

const pgt = usePostgres();

/** What a worker reads back of the instance (`read`). */
interface Read extends ChildEvent {
  context: { total: number; checked?: string };
  version: number;
  events: { source: string; eventId?: string; type: string }[];
  steps: { name: string; outcome: string; output?: unknown; error?: { code?: string } }[];
}

/**
 * Issue 42's acceptance on PostgreSQL: two processes, each with its own `workflows()` host of
 * the same machine (test/helpers/pg-workflow-worker.ts), drive one instance at once. Each event
 * is applied exactly once, in one order both processes read back; a writer whose lease another
 * process took has its writes refused and changes nothing.
 */
describe('one workflow instance, two writer processes on PostgreSQL', () => {
  const workers: JsonLineChild[] = [];
  const start = async (schema: string, owner: string, clock = 'system', ttlMs = 30_000) => {
    const args = [pgt.url, schema, owner, clock, String(ttlMs)];
    const worker = await JsonLineChild.start('test/helpers/pg-workflow-worker.ts', args);
    workers.push(worker);
    expect(await worker.next('ready', 'exited')).toEqual({ event: 'ready' });
    return worker;
  };
  const read = async (worker: JsonLineChild, id: string): Promise<Read> => {
    worker.send('read', { id });
    const event = await worker.next('read', 'failed', 'exited');
    expect(event.event).toBe('read');
    return event as Read;
  };
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });

  it('applies 100 events sent by each process at once exactly once, in one order both read', async () => {
    const schema = pgt.schema('two-writers');
    const [a, b] = await Promise.all([start(schema, 'proc-a'), start(schema, 'proc-b')]);
    a.send('start', { id: 'c1' });
    expect(await a.next('started', 'failed', 'exited')).toMatchObject({ event: 'started' });
    a.send('burst', { id: 'c1', from: 'a', count: 100 });
    b.send('burst', { id: 'c1', from: 'b', count: 100 });
    const bursts = await Promise.all([
      a.next('burst-done', 'failed', 'exited'),
      b.next('burst-done', 'failed', 'exited'),
    ]);
    expect(bursts).toEqual([
      { event: 'burst-done', failed: [] },
      { event: 'burst-done', failed: [] },
    ]);
    const [fromA, fromB] = await Promise.all([read(a, 'c1'), read(b, 'c1')]);
    const sent = Array.from({ length: 100 }, (_, i) => [`a-${i}`, `b-${i}`]).flat();
    const applied = fromA.events.filter((e) => e.source === 'send');
    // Each event once: 200 entries, no event id twice, every one sent.
    expect(applied).toHaveLength(200);
    const order = applied.map((e) => e.eventId);
    expect(new Set(order).size).toBe(200);
    expect([...order].sort()).toEqual([...sent].sort());
    // In one order, the same for both processes, and the machine took each once.
    expect(fromB.events).toEqual(fromA.events);
    expect(fromA.context.total).toBe(200);
    expect(fromB).toEqual(fromA);
    // Both processes applied some (the events really came from two writers at once).
    expect(order.some((id) => id?.startsWith('a-'))).toBe(true);
    expect(order.some((id) => id?.startsWith('b-'))).toBe(true);
  });

  it('refuses the writes of a process whose lease another took over, changing nothing', async () => {
    const schema = pgt.schema('lease-lost');
    // Both clocks stand still; b's starts 10 s after a's, past a's 1 s lease.
    const t0 = Date.UTC(2026, 0, 1);
    const a = await start(schema, 'proc-a', `fake:${t0}`, 1_000);
    const b = await start(schema, 'proc-b', `fake:${t0 + 10_000}`, 1_000);
    a.send('start', { id: 'c2' });
    expect(await a.next('started', 'failed', 'exited')).toMatchObject({ event: 'started' });
    // a holds the instance while its step runs (the step waits for `release`).
    a.send('check', { id: 'c2' });
    expect(await a.next('step-running', 'check-failed', 'exited')).toEqual({
      event: 'step-running',
    });
    // b finds a's lease expired, takes the instance over: the step a runs is in doubt there
    // (it fails, by its policy), and b applies its own event.
    b.send('add', { id: 'c2', eventId: 'b-1' });
    expect(await b.next('added', 'failed', 'exited')).toEqual({ event: 'added' });
    const before = await read(b, 'c2');
    expect(before.context).toEqual({ total: 1, checked: 'interrupted' });
    expect(before.steps).toMatchObject([
      { name: 'check', outcome: 'error', error: { code: 'STEP_INTERRUPTED' } },
    ]);
    // a's step ends: its save, under the lease it lost, is refused, and nothing changes.
    a.send('release');
    expect(await a.next('check-done', 'check-failed', 'exited')).toMatchObject({
      event: 'check-failed',
      code: 'LEASE_LOST',
    });
    expect(await read(b, 'c2')).toEqual(before);
    expect(await read(a, 'c2')).toEqual(before);
    // The instance goes on with b as its writer.
    b.send('add', { id: 'c2', eventId: 'b-2' });
    expect(await b.next('added', 'failed', 'exited')).toEqual({ event: 'added' });
    expect((await read(b, 'c2')).context).toEqual({ total: 2, checked: 'interrupted' });
  });
});
