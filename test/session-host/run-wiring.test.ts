import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, tool, type RunStreamEvent } from '../../src/index.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { collect } from '../helpers/agent-fixtures.js';
import { deferred } from '../helpers/async.js';

/**
 * The step actors of every loaded session share one provided machine (session-host/run-wiring.ts)
 * and find their deps through their session's actor system: two sessions loaded at the same
 * time, of two agents, each with its own model, tools, RunContext and stream, never see the
 * other's.
 */
describe('run wiring: each loaded session steps with its own deps', () => {
  it('two sessions of two agents, in flight at once in one process, stay apart', async () => {
    const store = new MemorySessionStore();
    const bothInFlight = deferred();
    let waiting = 2;
    const seen: string[] = [];
    const probe = (agent: string) =>
      tool({
        name: `probe_${agent}`,
        description: 'Notes the RunContext it runs in, once both sessions are in flight',
        parameters: z.object({}),
        execute: async (_args, { context }) => {
          if (--waiting === 0) bothInFlight.resolve();
          await bothInFlight.promise; // both sessions are loaded and mid-run now
          seen.push(`${agent}:${context.sessionId}:${context.userId}`);
          return `${agent} probed`;
        },
      });
    const agentOf = (name: string) =>
      new Agent({
        name,
        store,
        tools: [probe(name)],
        model: new ScriptedModel([
          { toolCalls: [{ name: `probe_${name}`, arguments: {} }] },
          { text: `answer of ${name}` },
        ]),
      });
    const alpha = agentOf('alpha');
    const beta = agentOf('beta');
    const a = alpha.stream('go', { sessionId: 's-alpha', userId: 'ann' });
    const b = beta.stream('go', { sessionId: 's-beta', userId: 'bob' });
    const [eventsA, eventsB] = await Promise.all([collect(a), collect(b)]);
    const [resultA, resultB] = await Promise.all([a.result, b.result]);

    expect(resultA.output).toBe('answer of alpha');
    expect(resultB.output).toBe('answer of beta');
    expect(seen.sort()).toEqual(['alpha:s-alpha:ann', 'beta:s-beta:bob']);
    const tools = (events: RunStreamEvent[]) =>
      events.flatMap((e) => (e.type === 'tool_call_finished' ? [`${e.name}=${e.output}`] : []));
    expect(tools(eventsA)).toEqual(['probe_alpha=alpha probed']);
    expect(tools(eventsB)).toEqual(['probe_beta=beta probed']);
    const text = (events: RunStreamEvent[]) =>
      events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('');
    expect(text(eventsA)).toBe('answer of alpha');
    expect(text(eventsB)).toBe('answer of beta');
  });
});
