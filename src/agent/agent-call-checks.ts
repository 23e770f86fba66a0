import { optionNames } from '../validation/option-checks.js';
import type {
  CancelOptions,
  RejectOptions,
  ResumeOptions,
  RunOptions,
} from './agent-call-options.js';
import type { SessionRunOptions } from './agent-session.js';

export const RUN_OPTION_NAMES = optionNames<RunOptions>({
  sessionId: true,
  userId: true,
  metadata: true,
  store: true,
  signal: true,
  maxTurns: true,
  modelSettings: true,
  durability: true,
});

export const RESUME_OPTION_NAMES = optionNames<ResumeOptions>({
  userId: true,
  metadata: true,
  store: true,
  signal: true,
  maxTurns: true,
  durability: true,
});

export const REJECT_OPTION_NAMES = [
  ...RESUME_OPTION_NAMES,
  ...optionNames<Omit<RejectOptions, keyof ResumeOptions>>({
    always: true,
    runId: true,
    by: true,
    message: true,
  }),
];

export const APPROVE_OPTION_NAMES = REJECT_OPTION_NAMES.filter((name) => name !== 'message');

export const CANCEL_OPTION_NAMES = optionNames<CancelOptions>({ userId: true, store: true });

export const SESSION_RUN_OPTION_NAMES = optionNames<SessionRunOptions>({
  signal: true,
  maxTurns: true,
  modelSettings: true,
  durability: true,
});

/** `session.resume()` keeps the run's stored model settings. */
export const SESSION_RESUME_OPTION_NAMES = SESSION_RUN_OPTION_NAMES.filter(
  (name) => name !== 'modelSettings',
);
