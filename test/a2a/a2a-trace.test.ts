import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { context, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { startA2AServer, type A2AServer } from '../helpers/a2a-server.js';
import { named, parentOf, testTelemetry } from '../helpers/otel.js';

/** The context manager an OpenTelemetry SDK registers, in a few lines (AsyncLocalStorage). */
class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

let server: A2AServer | undefined;
afterEach(async () => {
  context.disable();
  await server?.close();
  server = undefined;
});

describe('createA2AHandler: trace context', () => {
  it("makes the run's span a child of the caller's span named by its traceparent header", async () => {
    context.setGlobalContextManager(new StorageContextManager());
    const otel = testTelemetry();
    server = await startA2AServer({}, { telemetry: otel.options });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const response = await server.post(
      'alice',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: 'm1',
            contextId: 's1',
            role: 'ROLE_USER',
            parts: [{ text: 'add' }],
          },
        },
      },
      { traceparent: `00-${traceId}-${callerSpan}-01` },
    );
    expect(
      ((await response.json()) as { result: { task: { id: string } } }).result.task.id,
    ).toMatch(/^s1:/);
    const [run] = named(otel.spans(), 'invoke_agent assistant');
    expect(run!.spanContext().traceId).toBe(traceId);
    expect(parentOf(run!)).toBe(callerSpan);
  });
});
