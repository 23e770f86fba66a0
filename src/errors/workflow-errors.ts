import { AgentStateError } from './agentstate-error.js';

/**
 * The typed errors of hosted app machines (`workflows()`). Each names the instance; none leaves
 * anything stored changed.
 */

/** No instance of this workflow with this id for this user (another user's behaves the same). */
export class WorkflowNotFoundError extends AgentStateError {
  constructor(readonly workflowId: string) {
    super('WORKFLOW_NOT_FOUND', `Workflow instance "${workflowId}" was not found`);
  }
}

/** `start` with an id that is taken (by an instance of any workflow of this user). */
export class WorkflowExistsError extends AgentStateError {
  constructor(readonly workflowId: string) {
    super('WORKFLOW_EXISTS', `Workflow instance "${workflowId}" exists already`);
  }
}

/**
 * The stored record is not what was asked for: another workflow's instance or a session where
 * an instance of `expected` was asked for (`'*'`: of any workflow, as the command line asks),
 * or (`expected` undefined) a workflow instance where a session was.
 */
export class WorkflowMismatchError extends AgentStateError {
  constructor(
    readonly workflowId: string,
    readonly expected: string | undefined,
    readonly found: string | undefined,
  ) {
    super(
      'WORKFLOW_MISMATCH',
      expected === undefined
        ? `Session "${workflowId}" is an instance of workflow "${found}", not a session`
        : expected === '*'
          ? `"${workflowId}" is a session, not a workflow instance`
          : `Workflow instance "${workflowId}" is ${found === undefined ? 'a session, not a workflow instance' : `an instance of workflow "${found}"`}, not of "${expected}"`,
      expected === undefined ? { sessionId: workflowId } : {},
    );
  }
}

/**
 * The machine's definition changed since the instance was saved, at the same `version`, or no
 * migration leads from the stored version to this one: what changed is named.
 */
export class WorkflowDefinitionChangedError extends AgentStateError {
  constructor(
    readonly workflowId: string,
    readonly changes: readonly string[],
  ) {
    super(
      'WORKFLOW_DEFINITION_CHANGED',
      `Workflow instance "${workflowId}" was saved by another definition of its machine ` +
        `(${changes.join('; ')}): raise the workflow's \`version\` and give a migration, or ` +
        'run it with the definition that started it',
    );
  }
}

/** An event the instance's current state does not accept: the state and what it accepts. */
export class EventNotAcceptedError extends AgentStateError {
  constructor(
    readonly workflowId: string,
    readonly eventType: string,
    readonly state: unknown,
    readonly accepted: readonly string[],
  ) {
    super(
      'EVENT_NOT_ACCEPTED',
      `Workflow instance "${workflowId}" in state ${JSON.stringify(state)} does not accept ` +
        `event "${eventType}" (it accepts: ${accepted.length > 0 ? accepted.join(', ') : 'none'})`,
    );
  }
}

/** An event that is not a plain-JSON object with a non-empty string `type`. */
export class InvalidEventError extends AgentStateError {
  constructor(
    readonly workflowId: string,
    reason: string,
  ) {
    super('INVALID_EVENT', `Event for workflow instance "${workflowId}": ${reason}`);
  }
}

/**
 * An actor of the machine the host cannot make durable: neither a step, an agent nor a child
 * workflow given to `workflows()` (a crash would run it again, unjournaled). Raised by
 * `workflows()`, before any instance starts.
 */
export class UndeclaredActorError extends AgentStateError {
  constructor(
    readonly machine: string,
    readonly actor: string,
  ) {
    super(
      'UNDECLARED_ACTOR',
      `Workflow "${machine}": actor "${actor}" is not declared durable: give it to workflows() ` +
        'as a step (`steps`), an agent (`agents`) or a child workflow (`children`)',
    );
  }
}

/**
 * A durable step was in flight when its process stopped and its policy (`onInterrupted:
 * 'fail'`, the default for a step not marked `idempotent`) does not run it again: its effect
 * may or may not have happened. The machine receives it as the step's error.
 */
export class StepInterruptedError extends AgentStateError {
  constructor(
    readonly workflowId: string,
    readonly step: string,
    readonly key: string,
  ) {
    super(
      'STEP_INTERRUPTED',
      `Workflow instance "${workflowId}": step "${step}" (key ${key}) was in flight when its ` +
        'process stopped; its outcome is unknown and it was not run again',
    );
  }
}

/** The instance was cancelled (`cancel`): what was waiting for it gets this. */
export class WorkflowCancelledError extends AgentStateError {
  constructor(readonly workflowId: string) {
    super('WORKFLOW_CANCELLED', `Workflow instance "${workflowId}" was cancelled`);
  }
}
