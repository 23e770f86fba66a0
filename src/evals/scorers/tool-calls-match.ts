import { isDeepStrictEqual } from 'node:util';
import type { EvalToolCall } from '../eval-row.js';
import type { Scorer } from '../scorer.js';
import { OptionChecker, optionNames } from '../../validation/option-checks.js';
import { matchInOrder } from './in-order-match.js';

/** Options of `toolCallsMatch`. */
export interface ToolCallsMatchOptions {
  /**
   * How arguments compare: `json` (the same JSON value, key order aside), `exact` (the same
   * text) or `ignore` (names only). An expected call without arguments matches any.
   * @default 'json'
   */
  arguments?: 'exact' | 'json' | 'ignore' | undefined;
  /** The scorer's name in reports. @default 'tools' */
  name?: string | undefined;
}

const OPTION_NAMES = optionNames<ToolCallsMatchOptions>({ arguments: true, name: true });

/** An expected call: its arguments may be left out. */
type ExpectedCall = Pick<EvalToolCall, 'name'> & { arguments?: string | undefined };

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const shown = (call: ExpectedCall): string =>
  call.arguments === undefined ? call.name : `${call.name} ${call.arguments}`;

/**
 * Scores the tool calls asked for (names and arguments, in order; sub-agent runs' included)
 * against the row's `expected.toolCalls`, else the recorded ones: the score is the share
 * matched in order (of the longer list), passing when all match. A failure names the calls
 * missing and those not expected.
 * @throws TypeError for bad options.
 */
export function toolCallsMatch(options: ToolCallsMatchOptions = {}): Scorer {
  new OptionChecker('toolCallsMatch()', options, OPTION_NAMES)
    .check('arguments', '"exact", "json" or "ignore"', (v) =>
      ['exact', 'json', 'ignore'].includes(v as string),
    )
    .nonEmptyString('name');
  const mode = options.arguments ?? 'json';
  const same = (e: ExpectedCall, a: EvalToolCall): boolean => {
    if (e.name !== a.name) return false;
    if (mode === 'ignore' || e.arguments === undefined) return true;
    if (mode === 'exact') return e.arguments === a.arguments;
    return isDeepStrictEqual(parsed(e.arguments), parsed(a.arguments));
  };
  return {
    name: options.name ?? 'tools',
    score: ({ row, outcome }) => {
      const expected: readonly ExpectedCall[] = row.expected?.toolCalls ?? row.recorded.toolCalls;
      const actual = outcome.toolCalls;
      const longest = Math.max(expected.length, actual.length);
      if (longest === 0) return { score: 1, pass: true };
      const match = matchInOrder(expected, actual, same);
      const pass = match.matched === longest;
      if (pass) return { score: 1, pass };
      const parts = [
        match.missing.length
          ? `missing ${match.missing.map((i) => shown(expected[i]!)).join(', ')}`
          : '',
        match.extra.length
          ? `not expected ${match.extra.map((i) => shown(actual[i]!)).join(', ')}`
          : '',
      ];
      return {
        score: match.matched / longest,
        pass,
        reason: `${match.matched} of ${longest} calls match in order: ${parts.filter(Boolean).join('; ')}`,
      };
    },
  };
}
