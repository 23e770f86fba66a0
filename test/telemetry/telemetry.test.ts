import { afterEach, describe, expect, it } from 'vitest';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from '@opentelemetry/semantic-conventions/incubating';
import { SpanKind, metrics, trace } from '@opentelemetry/api';
import { Agent, LevelSessionStore, RunState, findRunContext } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { approvalTools, newCounters } from '../helpers/approval-agent.js';
import { add } from '../helpers/agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { hookProcessor, named, parentOf, testTelemetry } from '../helpers/otel.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'tele-1', userId: 'alice' };
const addThenAnswer = () =>
  new ScriptedModel(
    (request) =>
      request.items.some((i) => i.type === 'tool_result')
        ? { text: 'It is 5', usage: { inputTokens: 30, outputTokens: 4, cachedTokens: 10 } }
        : {
            toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 }, callId: 'call-add' }],
            usage: { inputTokens: 20, outputTokens: 6, cachedTokens: 0 },
          },
    { name: 'gpt-test' },
  );

/** The calculator agent on a fresh LevelDB store, traced to a test SDK. */
async function calcAgent(extra: Parameters<typeof testTelemetry>[0] = []) {
  const { store } = await temps.open();
  const otel = testTelemetry(extra);
  const agent = new Agent({
    name: 'calc',
    model: addThenAnswer(),
    tools: [add],
    store,
    telemetry: otel.options,
  });
  return { store, otel, agent };
}

describe('OpenTelemetry GenAI telemetry', () => {
  it('emits invoke_agent, chat and execute_tool spans with the GenAI attributes and agentstate facts', async () => {
    const { otel, agent } = await calcAgent();
    const result = await agent.run('2 + 3?', key);

    const spans = otel.spans();
    const [run] = named(spans, 'invoke_agent calc');
    const chats = named(spans, 'chat gpt-test');
    const [toolSpan] = named(spans, 'execute_tool add');
    expect(run).toBeDefined();
    expect(chats).toHaveLength(2);
    expect(toolSpan).toBeDefined();
    // One trace; the steps are children of the run's span.
    for (const step of [...chats, toolSpan!]) {
      expect(step.spanContext().traceId).toBe(run!.spanContext().traceId);
      expect(parentOf(step)).toBe(run!.spanContext().spanId);
    }
    expect(run!.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent',
      'gen_ai.agent.name': 'calc',
      [ATTR_GEN_AI_CONVERSATION_ID]: 'tele-1',
      'agentstate.user.id': 'alice',
      'agentstate.run.id': result.id,
      'agentstate.session.version': 1,
      'agentstate.run.status': 'completed',
      'agentstate.run.turns': 2,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 50,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 10,
    });
    expect(chats[0]!.kind).toBe(SpanKind.CLIENT);
    expect(chats[1]!.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [ATTR_GEN_AI_PROVIDER_NAME]: 'scripted',
      [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-test',
      [ATTR_GEN_AI_RESPONSE_MODEL]: 'gpt-test',
      [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: ['stop'],
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 30,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 4,
      [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 10,
      [ATTR_GEN_AI_CONVERSATION_ID]: 'tele-1',
      'agentstate.user.id': 'alice',
    });
    expect(toolSpan!.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
      [ATTR_GEN_AI_TOOL_NAME]: 'add',
      [ATTR_GEN_AI_TOOL_CALL_ID]: 'call-add',
      'gen_ai.tool.type': 'function',
    });
    // No content without the opt-in.
    for (const span of spans) {
      expect(span.attributes[ATTR_GEN_AI_INPUT_MESSAGES]).toBeUndefined();
      expect(span.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBeUndefined();
      expect(JSON.stringify(span.attributes)).not.toContain('2 + 3?');
    }
  });

  it('records the token usage and operation duration histograms the conventions name', async () => {
    const { otel, agent } = await calcAgent();
    await agent.run('2 + 3?', key);
    const histograms = await otel.histograms();
    const tokens = histograms.get(METRIC_GEN_AI_CLIENT_TOKEN_USAGE)!;
    const duration = histograms.get(METRIC_GEN_AI_CLIENT_OPERATION_DURATION)!;
    expect(tokens.descriptor.unit).toBe('{token}');
    expect(duration.descriptor.unit).toBe('s');
    const input = tokens.dataPoints.find((p) => p.attributes['gen_ai.token.type'] === 'input')!;
    const output = tokens.dataPoints.find((p) => p.attributes['gen_ai.token.type'] === 'output')!;
    expect(input.value.sum).toBe(50);
    expect(output.value.sum).toBe(10);
    expect(input.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [ATTR_GEN_AI_PROVIDER_NAME]: 'scripted',
      [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-test',
    });
    expect(duration.dataPoints[0]!.value.count).toBe(2);
  });

  it('records message and argument content only on opt-in, redacted', async () => {
    const { store } = await temps.open();
    const otel = testTelemetry();
    const secret = 'sk-test-FAKEKEY-0001';
    const agent = new Agent({
      name: 'calc',
      model: addThenAnswer(),
      tools: [add],
      store,
      redact: (text) => text.replaceAll(secret, '[REDACTED]'),
      telemetry: { ...otel.options, recordContent: true },
    });
    await agent.run(`2 + 3? my key is ${secret}`, key);
    const spans = otel.spans();
    const chat = named(spans, 'chat gpt-test')[0]!;
    expect(String(chat.attributes[ATTR_GEN_AI_INPUT_MESSAGES])).toContain('[REDACTED]');
    expect(named(spans, 'execute_tool add')[0]!.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBe(
      '{"a":2,"b":3}',
    );
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(secret);
  });

  it('nests a sub-agent run under its parent run', async () => {
    const { store } = await temps.open();
    const otel = testTelemetry();
    const child = new Agent({
      name: 'helper',
      model: new ScriptedModel([{ text: 'child says hi' }]),
    });
    const parent = new Agent({
      name: 'boss',
      model: new ScriptedModel([
        { toolCalls: [{ name: 'ask_helper', arguments: { input: 'hi' } }] },
        { text: 'done' },
      ]),
      tools: [child.asTool({ name: 'ask_helper', description: 'Asks the helper' })],
      store,
      telemetry: otel.options,
    });
    const result = await parent.run('go', key);
    const spans = otel.spans();
    const [boss] = named(spans, 'invoke_agent boss');
    const [helper] = named(spans, 'invoke_agent helper');
    expect(parentOf(helper!)).toBe(boss!.spanContext().spanId);
    expect(helper!.attributes).toMatchObject({
      'agentstate.run.id': result.subRuns[0]!.runId,
      'agentstate.run.parent_id': result.id,
      'agentstate.agent.path': ['boss', 'helper'],
      'agentstate.user.id': 'alice',
    });
    const helperChat = spans.find(
      (s) => s.name.startsWith('chat') && parentOf(s) === helper!.spanContext().spanId,
    );
    expect(helperChat).toBeDefined();
  });

  it('a run resumed from a reopened store continues its trace (traceparent kept in the run state)', async () => {
    const temp = await temps.open();
    const counters = newCounters();
    const model = () =>
      new ScriptedModel((request) =>
        request.items.some((i) => i.type === 'tool_result')
          ? { text: 'sent' }
          : { toolCalls: [{ name: 'send_email', arguments: { to: 'bob', body: 'hi' } }] },
      );
    const first = testTelemetry();
    const agent1 = new Agent({
      name: 'mailer',
      model: model(),
      tools: approvalTools(counters),
      store: temp.store,
      telemetry: first.options,
    });
    const paused = await agent1.run('mail bob', key);
    expect(paused.interrupted).toBe(true);
    const [segment1] = named(first.spans(), 'invoke_agent mailer');
    expect(segment1!.attributes['agentstate.run.status']).toBe('interrupted');
    expect(segment1!.attributes['agentstate.run.interruption']).toBe('approval');
    const stored = await temp.store.load(key);
    expect(JSON.stringify(stored.snapshot)).toContain(
      `00-${segment1!.spanContext().traceId}-${segment1!.spanContext().spanId}-01`,
    );
    await temp.store.close();

    // Another store handle, agent and SDK: as a new process would have.
    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    const second = testTelemetry();
    const agent2 = new Agent({
      name: 'mailer',
      model: model(),
      tools: approvalTools(counters),
      store: reopened,
      telemetry: second.options,
    });
    const state = RunState.fromJSON(JSON.stringify(paused.state));
    await agent2.resume(state.approve(state.interruptions[0]!.callId), { store: reopened });
    const spans = second.spans();
    const [segment2] = named(spans, 'invoke_agent mailer');
    expect(segment2!.spanContext().traceId).toBe(segment1!.spanContext().traceId);
    expect(parentOf(segment2!)).toBe(segment1!.spanContext().spanId);
    expect(segment2!.attributes['agentstate.run.resumed']).toBe(true);
    const tool = named(spans, 'execute_tool send_email')[0]!;
    expect(tool.spanContext().traceId).toBe(segment1!.spanContext().traceId);
    expect(tool.attributes).toMatchObject({
      'agentstate.approval.decision': 'approved',
      'agentstate.approval.reason': 'user',
    });
  });

  it('calls span hooks inside the run context', async () => {
    const seen: string[] = [];
    const { agent } = await calcAgent([
      hookProcessor({
        onStart: (span) => seen.push(`start ${span.name}: ${findRunContext()?.userId}`),
        onEnd: (span) => seen.push(`end ${span.name}: ${findRunContext()?.userId}`),
      }),
    ]);
    await agent.run('2 + 3?', key);
    expect(seen.length).toBeGreaterThanOrEqual(8);
    for (const line of seen) expect(line).toMatch(/: alice$/);
  });

  it('with no SDK registered emits nothing and stores no trace context', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'calc', model: addThenAnswer(), tools: [add], store });
    const result = await agent.run('2 + 3?', key);
    expect(result.output).toBe('It is 5');
    const stored = await store.load(key);
    expect(JSON.stringify(stored.snapshot)).not.toContain('traceparent');
  });

  it('uses the SDK an app registers globally, also one registered after the agent was made', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'calc', model: addThenAnswer(), tools: [add], store });
    expect((await agent.run('2 + 3?', key)).output).toBe('It is 5'); // nothing registered yet
    const otel = testTelemetry();
    trace.setGlobalTracerProvider(otel.options.tracerProvider);
    metrics.setGlobalMeterProvider(otel.options.meterProvider);
    try {
      await agent.run('2 + 3?', { ...key, sessionId: 'tele-2' });
      expect(named(otel.spans(), 'invoke_agent calc')).toHaveLength(1);
      expect(named(otel.spans(), 'chat gpt-test')).toHaveLength(2);
      const histograms = await otel.histograms();
      expect(histograms.get(METRIC_GEN_AI_CLIENT_TOKEN_USAGE)?.dataPoints.length).toBeGreaterThan(
        0,
      );
    } finally {
      trace.disable();
      metrics.disable();
    }
  });

  it('refuses a bad telemetry option with a TypeError naming it', () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ name: 'a', model, telemetry: 'on' as never })).toThrow(/telemetry/);
    expect(
      () => new Agent({ name: 'a', model, telemetry: { tracerprovider: {} } as never }),
    ).toThrow(/tracerProvider/);
    expect(
      () => new Agent({ name: 'a', model, telemetry: { recordContent: 'yes' } as never }),
    ).toThrow(/recordContent/);
  });
});
