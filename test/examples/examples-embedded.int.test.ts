import { afterEach, describe, expect, it } from 'vitest';
import { runExample } from '../helpers/run-example.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('examples/embedded.ts', () => {
  it("persists the app's order actor while its agent waits (the order in its own awaitingApproval state), and a new process restores it, approves and ends the order", async () => {
    const dir = await temps.folder();
    const out = await runExample('embedded.ts', dir);
    const find = (prefix: string) => out.find((o) => o.line.startsWith(prefix));
    const own = find('Order B-12 is in state "assisting.awaitingApproval"');
    const waits = find('The agent waits for approval of refund');
    const restored = find('Restored order B-12 in state "assisting.awaitingApproval"');
    const ended = find('Order B-12 ended');
    expect(own && waits && restored && ended).toBeTruthy();
    expect(own!.pid).toBe(waits!.pid);
    expect(restored!.pid).not.toBe(waits!.pid);
    expect(ended!.line).toBe('Order B-12 ended "refunded": I refunded $19.9 for B-12.');
    const refunds = out.filter((o) => o.line.includes('[agent] refunding'));
    expect(refunds.map((o) => o.pid)).toEqual([restored!.pid]);
  });
});
