/**
 * The child process of `exploreCrashes({ processes })`: the first process of one crash point,
 * run for real. It imports the agent's module, opens the point's LevelDB folder, plays the
 * scenario and prints each fact on file descriptor 3 (JSON lines). At its crash point (before
 * the write reaches LevelDB, right after it was handed over, or once it landed) it prints
 * `kill`, holds every later store call and waits for the parent's SIGKILL.
 */
import { writeSync } from 'node:fs';
import { LevelSessionStore } from '../persistence/kv/level-session-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { CHILD_EVENTS_FD, type ChildLifeConfig } from './child-life.js';
import type { CrashSide } from './crashing-store.js';
import { importChildModule } from './child-module.js';
import type { LifeEvent } from './life-event.js';
import { describeError } from './describe-error.js';
import { ScenarioRun } from './scenario-run.js';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

function emit(event: LifeEvent): void {
  writeSync(CHILD_EVENTS_FD, `${JSON.stringify(event)}\n`);
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
    setInterval(() => undefined, 1 << 30); // alive until the kill (or the parent's end)
    return never();
  }
}

/** Ends this process if its parent is gone (an exploration interrupted): no child outlives it. */
function watchParent(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(1);
  }, 1000).unref();
}

async function main(config: ChildLifeConfig): Promise<void> {
  watchParent();
  const { agent, effects, clock } = await importChildModule(config.module, config);
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
