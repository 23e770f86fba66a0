/**
 * The child process of `exploreCrashes({ processes })`: the first process of one crash point,
 * run for real. It imports the agent's module, opens the point's LevelDB folder, plays the
 * scenario and prints each fact on file descriptor 3 (JSON lines). At its crash point (before
 * the write reaches LevelDB, right after it was handed over, or once it landed) it prints
 * `kill`, holds every later store call and waits for the parent's SIGKILL.
 */
import { writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Agent } from '../agent/agent.js';
import { LevelSessionStore } from '../persistence/kv/level-session-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { FakeClock } from '../testing/fake-clock.js';
import { CHILD_EVENTS_FD, type ChildLifeConfig } from './child-life.js';
import type { CrashSide } from './crashing-store.js';
import { EffectLedger } from './effect-ledger.js';
import type { LifeEvent } from './life-event.js';
import { describeError } from './describe-error.js';
import { ScenarioRun } from './scenario-run.js';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

function emit(event: LifeEvent): void {
  writeSync(CHILD_EVENTS_FD, `${JSON.stringify(event)}\n`);
}

/** The module's export `name`, checked to be an instance of `type`. */
function exported<T>(
  module: Record<string, unknown>,
  names: readonly string[],
  type: abstract new (...args: never[]) => T,
  what: string,
  file: string,
): T {
  const name = names.find((n) => module[n] !== undefined);
  const value = name === undefined ? undefined : module[name];
  if (!(value instanceof type))
    throw new TypeError(
      `exploreCrashes: ${file} has no export ${names.join(' or ')} that is ${what}`,
    );
  return value;
}

/**
 * A handle on the LevelDB store that passes every call through until the crash point's write
 * (`arm` marks the next call as that write); then it prints `kill` and holds: no call of this
 * process reaches the store or settles any more, as in a frozen process about to be killed.
 */
class HoldingStore {
  readonly store: SessionStore;
  private armed: CrashSide | undefined;
  private holding = false;

  constructor(inner: SessionStore) {
    this.store = new Proxy(inner, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property);
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          if (this.holding) return never();
          const side = this.armed;
          if (side === undefined) return method.apply(target, args);
          this.armed = undefined;
          return this.hold(side, () => method.apply(target, args));
        };
      },
    });
  }

  /** The next call is the crash point's write. */
  arm(side: CrashSide): void {
    this.armed = side;
  }

  private async hold(side: CrashSide, write: () => unknown): Promise<never> {
    if (side === 'after') await Promise.resolve(write()).catch(() => undefined);
    this.holding = true;
    if (side === 'during') void Promise.resolve(write()).catch(() => undefined);
    emit({ type: 'kill' });
    setInterval(() => undefined, 1 << 30); // alive until the kill
    return never();
  }
}

async function main(config: ChildLifeConfig): Promise<void> {
  const module = (await import(pathToFileURL(config.module).href)) as Record<string, unknown>;
  const names = config.export === undefined ? ['default', 'agent'] : [config.export];
  const agent = exported(module, names, Agent, 'an Agent', config.module);
  const effects =
    config.effects === undefined
      ? undefined
      : exported(module, [config.effects], EffectLedger, 'an EffectLedger', config.module);
  const clock =
    config.clock === undefined
      ? undefined
      : exported(module, [config.clock], FakeClock, 'a FakeClock', config.module);
  if (effects) {
    const record = effects.record.bind(effects);
    effects.record = (...args) => {
      const applied = record(...args);
      emit({ type: 'effect', entry: effects.entries().at(-1)! });
      return applied;
    };
  }
  let holder: HoldingStore | undefined;
  let last: SessionStore | undefined;
  const run = new ScenarioRun({
    agent,
    scenario: config.scenario,
    space: {
      open: async () => {
        last = await LevelSessionStore.open({ path: config.path, clock });
        holder = new HoldingStore(last);
        return holder.store;
      },
      destroy: async () => {
        await last?.close();
      },
    },
    effects,
    clock,
    clockStart: config.clockStart,
    crashAt: undefined,
    inDoubt: config.inDoubt,
    faults: config.faults,
    report: (event) => {
      emit(event);
      const at = config.crashAt;
      if (event.type === 'write' && event.write.index === at?.write) holder?.arm(at.side);
    },
  });
  effects?.clear();
  clock?.set(config.clockStart);
  try {
    await run.firstLife();
  } catch (error) {
    emit({ type: 'error', message: describeError(error) });
  }
  emit({ type: 'done' });
  await run.close();
}

main(JSON.parse(process.argv[2] ?? '{}') as ChildLifeConfig).catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
