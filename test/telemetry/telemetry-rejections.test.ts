import { afterEach, describe, expect, it } from 'vitest';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { continueRun } from '../../src/index.js';
import { FakeClock } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { named, parentOf, testTelemetry } from '../helpers/otel.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * A rejected tool call never runs, but its `execute_tool` span is there: an error
 * (`error.type` `rejected`), with the approval decision and why, under the run's span.
 */

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const alice = { sessionId: 'tr-1', userId: 'alice' };
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });
const lookup = (word: string) => ({ name: 'lookup', arguments: { word } });

function expectRejectedSpan(span: ReadableSpan | undefined, reason: string, callId: string) {
  expect(span).toBeDefined();
  expect(span!.status.code).toBe(SpanStatusCode.ERROR);
  expect(span!.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.call.id': callId,
    'error.type': 'rejected',
    'agentstate.approval.decision': 'rejected',
    'agentstate.approval.reason': reason,
  });
}

describe('execute_tool spans of rejected calls', () => {
  it('a call rejected by a human and one denied by the permission policy each have one', async () => {
    const { store } = await temps.open();
    const otel = testTelemetry();
    const { agent, counters } = approvalAgent(store, {
      telemetry: otel.options,
      permissions: {
        check: (call) => (call.name === 'lookup' ? { deny: 'no lookups' } : 'allow'),
      },
    });
    const paused = await agent.run(callTools(email('bob'), lookup('x')), alice);
    const callId = paused.interruptions[0]!.callId;
    await agent.resume(paused.state.reject(callId), { userId: 'alice' });
    expect(counters.executed).toEqual({});

    const spans = otel.spans();
    expect(named(spans, 'execute_tool send_email')).toHaveLength(1);
    expectRejectedSpan(named(spans, 'execute_tool send_email')[0], 'user', callId);
    const denied = named(spans, 'execute_tool lookup');
    expect(denied).toHaveLength(1);
    expectRejectedSpan(denied[0], 'denied', denied[0]!.attributes['gen_ai.tool.call.id'] as string);
    // Under the run's span, like a call that ran.
    const runs = named(spans, 'invoke_agent assistant').map((s) => s.spanContext().spanId);
    for (const s of [...named(spans, 'execute_tool send_email'), ...denied]) {
      expect(runs).toContain(parentOf(s));
    }
  });

  it('a call whose approval deadline passed has one', async () => {
    const { store } = await temps.open();
    const otel = testTelemetry();
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { agent } = approvalAgent(store, {
      telemetry: otel.options,
      clock,
      approvalTimeoutMs: 1_000,
    });
    const paused = await agent.run(callTools(email('bob')), alice);
    expect(named(otel.spans(), 'execute_tool send_email')).toEqual([]);
    clock.advance(1_000);
    await agent.runtimeFor(store).execute(alice, continueRun());
    const spans = named(otel.spans(), 'execute_tool send_email');
    expect(spans).toHaveLength(1);
    expectRejectedSpan(spans[0], 'timeout', paused.interruptions[0]!.callId);
  });
});
