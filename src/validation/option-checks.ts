import { closestName } from './closest-name.js';

/**
 * The option names of an options type, spelled out once. The mapped type makes the compiler
 * refuse a list that misses an option or names one the type does not have, so the runtime
 * check of unknown names cannot drift from the TypeScript interface.
 */
export function optionNames<T>(names: { readonly [K in keyof Required<T>]: true }): string[] {
  return Object.keys(names);
}

/** How a value reads in an error message: `NaN`, `"gpt-4o"`, `an array`, `a function`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/** True for `{}`-style objects (not arrays, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the options object of one public call and throws a `TypeError` naming the call and
 * the option at the first mistake: an unknown option name (with the closest valid one), or a
 * value of the wrong kind. JavaScript callers get the guarantees the types give TypeScript
 * callers, at the call instead of deep inside a run.
 *
 * @example
 * new OptionChecker('agent.run()', options, RUN_OPTION_NAMES).positiveInteger('maxTurns');
 */
export class OptionChecker {
  private readonly options: Record<string, unknown>;

  /**
   * @param call How the caller wrote the call, e.g. `new Agent()` or `agent.run()`.
   * @param options What the caller passed; `undefined` stands for no options.
   * @param known Every valid option name (see {@link optionNames}).
   * @param path Where a nested options object sits, e.g. `userBudget`.
   */
  constructor(
    private readonly call: string,
    options: unknown,
    known: readonly string[],
    private readonly path?: string,
  ) {
    if (options === undefined && path === undefined) options = {};
    if (!isObject(options)) {
      const subject = path === undefined ? 'options' : `option "${path}"`;
      throw new TypeError(`${call}: ${subject} must be an object, got ${describeValue(options)}`);
    }
    for (const name of Object.keys(options)) {
      if (known.includes(name)) continue;
      const guess = closestName(name, known);
      const hint = guess === undefined ? '' : ` (did you mean "${this.name(guess)}"?)`;
      throw new TypeError(
        `${call}: unknown option "${this.name(name)}"${hint}; valid options are ${known.join(', ')}`,
      );
    }
    this.options = options;
  }

  /**
   * Throws unless `test` holds for the option's value; an absent option passes unless required.
   * `expected` may be given as a function: a message built only when the check fails (these
   * checks run on every call, so a passing one builds no message).
   */
  check(
    name: string,
    expected: string | (() => string),
    test: (value: unknown) => boolean,
    required = false,
  ): this {
    const value = this.options[name];
    if (value === undefined && !required) return this;
    if (!test(value)) {
      if (typeof expected === 'function') expected = expected();
      const verb = expected.startsWith('implement') ? 'must' : 'must be';
      throw new TypeError(
        `${this.call}: option "${this.name(name)}" ${verb} ${expected}, got ${describeValue(value)}`,
      );
    }
    return this;
  }

  nonEmptyString(name: string, required = false): this {
    return this.check(name, 'a non-empty string', isNonEmptyString, required);
  }

  string(name: string): this {
    return this.check(name, 'a string', (v) => typeof v === 'string');
  }

  function(name: string, required = false): this {
    return this.check(name, 'a function', (v) => typeof v === 'function', required);
  }

  object(name: string): this {
    return this.check(name, 'an object', isObject);
  }

  array(name: string): this {
    return this.check(name, 'an array', Array.isArray);
  }

  /** 1, 2, 3, ...: not 0, not 1.5, not NaN, not Infinity. */
  positiveInteger(name: string): this {
    return this.check(name, 'a positive integer', (v) => Number.isInteger(v) && (v as number) > 0);
  }

  /** 0, 1, 2, ... */
  nonNegativeInteger(name: string): this {
    return this.check(
      name,
      'a non-negative integer',
      (v) => Number.isInteger(v) && (v as number) >= 0,
    );
  }

  /** A finite number >= 0. */
  nonNegativeNumber(name: string): this {
    return this.check(
      name,
      'a non-negative finite number',
      (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
    );
  }

  /** An object whose `methods` are all functions, e.g. a `Model` or a `Clock`. */
  implements(name: string, type: string, methods: readonly string[], required = false): this {
    return this.check(
      name,
      () => `implement ${type} (${methods.join(' and ')} functions)`,
      (v) => hasMethods(v, methods),
      required,
    );
  }

  /** An instance of `type`, e.g. `AbortSignal`. */
  instanceOf(name: string, type: abstract new (...args: never[]) => unknown): this {
    const expected = () => `${/^[AEIOU]/.test(type.name) ? 'an' : 'a'} ${type.name}`;
    return this.check(name, expected, (v) => v instanceof type);
  }

  /** A `Budget` (see {@link checkBudget}). */
  budget(name: string): this {
    const value = this.options[name];
    if (value !== undefined) checkBudget(this.call, value, this.name(name));
    return this;
  }

  private name(option: string): string {
    return this.path === undefined ? option : `${this.path}.${option}`;
  }
}

const BUDGET_NAMES = ['maxTurns', 'maxTokens', 'maxCostUsd'];

/**
 * Checks a `Budget` (`changeBudget`, `AgentOptions.userBudget`): known names only, every
 * limit a non-negative finite number and `maxTurns` an integer.
 */
export function checkBudget(call: string, budget: unknown, path = 'budget'): void {
  new OptionChecker(call, budget, BUDGET_NAMES, path)
    .nonNegativeInteger('maxTurns')
    .nonNegativeNumber('maxTokens')
    .nonNegativeNumber('maxCostUsd');
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** True when `value` is an object (or function) whose `methods` are all functions. */
export function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const record = value as Record<string, unknown>;
  return methods.every((m) => typeof record[m] === 'function');
}
