import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  NoActiveRunError,
  RunContext,
  findRunContext,
  getRunContext,
  tool,
  withRunContext,
} from '../../src/index.js';
import { Agent } from '../../src/agent/agent.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { microtasks, nextImmediate, zeroTimeout } from '../helpers/async.js';

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('getRunContext / withRunContext', () => {
  it('throws a typed NoActiveRunError outside a run', () => {
    const error = catchError(() => getRunContext());
    expect(error).toBeInstanceOf(NoActiveRunError);
    expect((error as NoActiveRunError).code).toBe('NO_ACTIVE_RUN');
    expect(findRunContext()).toBeUndefined();
  });

  it('runs code inside an explicit context and restores the outer one when nested', () => {
    const outer = new RunContext({
      runId: 'r1',
      sessionId: 's1',
      userId: 'alice',
      metadata: { plan: 'pro' },
    });
    const seen = withRunContext(outer, () => {
      const before = getRunContext();
      const inner = withRunContext({ runId: 'r2', userId: 'bob' }, () => getRunContext());
      return { before, inner, after: getRunContext() };
    });
    expect(seen.before).toBe(outer);
    expect(seen.inner).toBeInstanceOf(RunContext);
    expect(seen.inner.userId).toBe('bob');
    expect(seen.inner.sessionId).toBeUndefined();
    expect(seen.after).toBe(outer);
    expect(outer.get('plan')).toBe('pro');
    expect(() => getRunContext()).toThrow(NoActiveRunError);
  });

  it('reaches code after awaits, setTimeout and setImmediate', async () => {
    const ctx = new RunContext({ runId: 'r', userId: 'carol' });
    const seen = await withRunContext(ctx, async () => {
      const ids: (string | undefined)[] = [];
      await Promise.resolve();
      ids.push(getRunContext().userId);
      await zeroTimeout();
      ids.push(getRunContext().userId);
      await nextImmediate();
      ids.push(getRunContext().userId);
      ids.push(
        await new Promise<string | undefined>((r) =>
          setTimeout(() => r(getRunContext().userId), 0),
        ),
      );
      ids.push(
        await new Promise<string | undefined>((r) => setImmediate(() => r(getRunContext().userId))),
      );
      return ids;
    });
    expect(seen).toEqual(['carol', 'carol', 'carol', 'carol', 'carol']);
    expect(findRunContext()).toBeUndefined();
  });
});

describe('RunContext.withOverrides', () => {
  const base = new RunContext({
    runId: 'r1',
    sessionId: 's1',
    userId: 'alice',
    metadata: { a: 1, b: 2 },
  });

  it('keeps omitted fields and clears fields given as undefined', () => {
    const kept = base.withOverrides({ sessionId: 's1/researcher' });
    expect(kept.toJSON()).toEqual({
      runId: 'r1',
      sessionId: 's1/researcher',
      userId: 'alice',
      metadata: { a: 1, b: 2 },
    });
    const cleared = base.withOverrides({ userId: undefined });
    expect(cleared.userId).toBeUndefined();
    expect(cleared.sessionId).toBe('s1');
    expect(cleared.runId).toBe('r1');
  });

  it('replaces metadata instead of merging it', () => {
    const next = base.withOverrides({ metadata: { c: 3 } });
    expect(next.metadata).toEqual({ c: 3 });
    expect(next.get('a')).toBeUndefined();
    expect(base.withOverrides({ metadata: undefined }).metadata).toEqual({});
  });

  it('is immutable: derived contexts are new frozen objects and the original is unchanged', () => {
    const next = base.withOverrides({ userId: 'bob' });
    expect(next).not.toBe(base);
    expect(base.userId).toBe('alice');
    expect(Object.isFrozen(base)).toBe(true);
    expect(Object.isFrozen(next)).toBe(true);
    expect(Object.isFrozen(next.metadata)).toBe(true);
    expect(() => {
      (base as { userId: string | undefined }).userId = 'mallory';
    }).toThrow(TypeError);
    expect(() => {
      (base.metadata as Record<string, unknown>).a = 99;
    }).toThrow(TypeError);
    expect(base.userId).toBe('alice');
    expect(base.get('a')).toBe(1);
  });

  it('copies the metadata it is given, so later changes to the source do not leak in', () => {
    const source: Record<string, unknown> = { tier: 'free' };
    const ctx = new RunContext({ metadata: source });
    source.tier = 'pro';
    expect(ctx.get('tier')).toBe('free');
  });
});

describe('RunContext inside agent runs', () => {
  it('reaches parallel tool calls of one run through awaits and timers', async () => {
    type Seen = {
      tool: string;
      ctx: RunContext;
      afterTimeout: string | undefined;
      afterImmediate: string | undefined;
    };
    const seen: Seen[] = [];
    const probe = (name: string) =>
      tool({
        name,
        description: `records the context (${name})`,
        parameters: z.object({}),
        async execute() {
          const ctx = getRunContext();
          await zeroTimeout();
          const afterTimeout = getRunContext().userId;
          await nextImmediate();
          seen.push({ tool: name, ctx, afterTimeout, afterImmediate: getRunContext().userId });
          return 'ok';
        },
      });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'first' }, { name: 'second' }] },
      { text: 'done' },
    ]);
    const store = new MemorySessionStore();
    const agent = new Agent({
      name: 'ctx',
      model,
      tools: [probe('first'), probe('second')],
      store,
    });
    const result = await agent.run('go', {
      sessionId: 'sess-1',
      userId: 'alice',
      metadata: { tenant: 't1' },
    });

    expect(result.output).toBe('done');
    expect(seen.map((s) => s.tool).sort()).toEqual(['first', 'second']);
    for (const s of seen) {
      expect(s.ctx.userId).toBe('alice');
      expect(s.ctx.sessionId).toBe('sess-1');
      expect(s.ctx.runId).toBe(result.id);
      expect(s.ctx.get('tenant')).toBe('t1');
      expect(s.afterTimeout).toBe('alice');
      expect(s.afterImmediate).toBe('alice');
    }
    expect(findRunContext()).toBeUndefined();
    await store.close();
  });

  it('keeps 100 interleaved concurrent runs apart: each tool sees only its own userId', async () => {
    const records: { userId: string | undefined; input: string }[] = [];
    let active = 0;
    let maxActive = 0;
    const whoami = tool({
      name: 'whoami',
      description: 'records who is asking',
      parameters: z.object({ input: z.string() }),
      async execute({ input }) {
        maxActive = Math.max(maxActive, ++active);
        await microtasks(3);
        await nextImmediate();
        await microtasks(2);
        await zeroTimeout();
        records.push({ userId: getRunContext().userId, input });
        active--;
        return getRunContext().userId ?? 'anonymous';
      },
    });
    // Turn 1: call the tool with the user's message; turn 2: repeat what the tool said.
    const model = new ScriptedModel((request) => {
      const last = request.items.at(-1);
      if (last?.type === 'message' && last.role === 'user') {
        return { toolCalls: [{ name: 'whoami', arguments: { input: last.content } }] };
      }
      return { text: last?.type === 'tool_result' ? last.output : 'unexpected' };
    });
    const store = new MemorySessionStore();
    const agent = new Agent({ name: 'tenants', model, tools: [whoami], store });

    const n = 100;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => agent.run(`input-${i}`, { userId: `user-${i}` })),
    );

    expect(records).toHaveLength(n);
    for (const r of records) expect(r.input.replace('input-', 'user-')).toBe(r.userId);
    expect(new Set(records.map((r) => r.userId)).size).toBe(n);
    results.forEach((result, i) => {
      expect(result.userId).toBe(`user-${i}`);
      expect(result.output).toBe(`user-${i}`);
    });
    // The runs really interleaved: many tool calls were in flight at the same time.
    expect(maxActive).toBeGreaterThan(1);
    await store.close();
  });
});
