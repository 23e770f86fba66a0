import { afterEach, describe, expect, it } from 'vitest';
import { TempStores } from '../helpers/temp-store.js';
import { runExample } from '../helpers/run-example.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('examples/a2a.ts', () => {
  it('B serves over A2A; A pauses on B’s question in one process, approves it in another, B pays', async () => {
    const out = await runExample('a2a.ts', await temps.folder());
    const line = (start: string) => out.find((o) => o.line.startsWith(start));
    const served = line('B serves the bills agent over A2A at http://127.0.0.1:');
    const paused = line("A's run paused for approval");
    const question = line('  remote_input by assistant > bills: ');
    const finished = line("A's run finished: ");
    expect(served && paused && question && finished).toBeTruthy();
    // Three processes: B, the one that asked, the one that approved.
    expect(new Set([served!.pid, paused!.pid, finished!.pid]).size).toBe(3);
    expect(question!.line).toMatch(
      /bills wants to call pay_bill with \{"payee":"ACME Power","amountUsd":120\}/,
    );
    expect(finished!.line).toBe(
      "A's run finished: The bills agent says: Paid $120.00 to ACME Power (confirmation tx-call_1_0).",
    );
  });
});
