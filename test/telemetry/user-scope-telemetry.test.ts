import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  RunState,
  getRunContext,
  tool,
  type SessionStore,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import { memoryLogger, testTelemetry } from '../helpers/otel.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const users = { 'session-A': 'user-alice', 'session-B': 'user-bob' } as const;
type SessionId = keyof typeof users;
const other = (userId: string) => (userId === 'user-alice' ? 'user-bob' : 'user-alice');

describe('userId in every span and log line, two users interleaved', () => {
  it('keeps each user in their own spans and lines across sub-agents and a reopened store', async () => {
    const temp = await temps.open();
    const otel = testTelemetry();
    const { logger, lines } = memoryLogger();
    const seen: string[] = [];

    const build = (store: SessionStore) => {
      const whoAmI = tool({
        name: 'who_am_i',
        description: 'Reads the run context',
        parameters: z.object({}),
        execute: () => {
          seen.push(`tool ${getRunContext().sessionId} ${getRunContext().userId}`);
          return getRunContext().userId ?? 'anonymous';
        },
      });
      const helper = new Agent({
        name: 'helper',
        model: new ScriptedModel((request) =>
          request.items.some((i) => i.type === 'tool_result')
            ? { text: 'checked' }
            : { toolCalls: [{ name: 'who_am_i', arguments: {} }] },
        ),
        tools: [whoAmI],
      });
      const sendEmail = tool({
        name: 'send_email',
        description: 'Sends an email',
        parameters: z.object({ to: z.string() }),
        needsApproval: true,
        execute: ({ to }) => `sent to ${to}`,
      });
      const desk = new Agent({
        name: 'desk',
        store,
        logger,
        telemetry: otel.options,
        tools: [helper.asTool({ name: 'ask_helper', description: 'Asks the helper' }), sendEmail],
        inputGuardrails: [
          {
            name: 'scope',
            check: () => {
              seen.push(`guardrail ${getRunContext().sessionId} ${getRunContext().userId}`);
              return { tripwire: false };
            },
          },
        ],
        model: new ScriptedModel((request) => {
          const results = request.items.filter((i) => i.type === 'tool_result').length;
          if (results === 0)
            return { toolCalls: [{ name: 'ask_helper', arguments: { input: 'check' } }] };
          if (results === 1)
            return { toolCalls: [{ name: 'send_email', arguments: { to: 'support' } }] };
          return { text: 'all done' };
        }),
      });
      return desk;
    };

    const first = build(temp.store);
    const run = (sessionId: SessionId) =>
      first.run('help me', { sessionId, userId: users[sessionId] });
    // Interleaved: both runs in flight at once, each pausing for its approval.
    const [pausedA, pausedB] = await Promise.all([run('session-A'), run('session-B')]);
    expect(pausedA.interruptionReason).toBe('approval');
    expect(pausedB.interruptionReason).toBe('approval');
    await temp.store.close();

    // A restart: the store reopened, the agents built again; bob first, then alice.
    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    const second = build(reopened);
    for (const paused of [pausedB, pausedA]) {
      const state = RunState.fromJSON(JSON.stringify(paused.state));
      const done = await second.resume(state.approve(state.interruptions[0]!.callId), {
        store: reopened,
      });
      expect(done.output).toBe('all done');
    }

    // Every hook saw its own user.
    expect(seen).toHaveLength(4);
    for (const entry of seen) {
      const [, sessionId, userId] = entry.split(' ');
      expect(userId).toBe(users[sessionId as SessionId]);
    }

    // Every span carries the user of its conversation, and nothing of the other user.
    const spans = otel.spans();
    expect(spans.filter((s) => s.name === 'invoke_agent helper')).toHaveLength(2);
    expect(spans.filter((s) => s.name === 'execute_tool send_email')).toHaveLength(2);
    expect(spans.length).toBeGreaterThanOrEqual(20);
    const traceUser = new Map<string, string>();
    for (const span of spans) {
      const sessionId = span.attributes['gen_ai.conversation.id'] as SessionId;
      const userId = span.attributes['agentstate.user.id'] as string;
      expect(users[sessionId], span.name).toBeDefined();
      expect(userId, span.name).toBe(users[sessionId]);
      expect(JSON.stringify(span.attributes)).not.toContain(other(userId));
      // A trace belongs to one user (the resumed segments continue the first one's trace).
      const traceId = span.spanContext().traceId;
      expect(traceUser.get(traceId) ?? userId).toBe(userId);
      traceUser.set(traceId, userId);
    }
    expect(new Set(traceUser.values())).toEqual(new Set(['user-alice', 'user-bob']));
    expect(traceUser.size).toBe(2);

    // Every log line carries the user of its session, and nothing of the other user.
    const events = lines.map((l) => l['event']);
    expect(events.filter((e) => e === 'run.start')).toHaveLength(4); // 2 runs + 2 sub-agent runs
    expect(events.filter((e) => e === 'run.restore')).toHaveLength(2);
    expect(events.filter((e) => e === 'run.end')).toHaveLength(4);
    for (const line of lines) {
      const sessionId = line['sessionId'] as SessionId;
      expect(line['userId']).toBe(users[sessionId]);
      expect(JSON.stringify(line)).not.toContain(other(line['userId'] as string));
    }
  });
});
