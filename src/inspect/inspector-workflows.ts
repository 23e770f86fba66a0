import type { AnyStateMachine } from 'xstate';
import { HttpError } from './http-io.js';

/**
 * What the inspector reads and calls of an app's workflow host (`workflows(machine, options)`):
 * its name (each instance record's `workflow`), the machine it hosts (its chart), and the
 * decisions on a call its nested agent waits for.
 */
export interface InspectedWorkflows {
  readonly name: string;
  readonly machine: AnyStateMachine;
  approve(id: string, callId: string, options: { userId?: string | undefined }): Promise<unknown>;
  reject(
    id: string,
    callId: string,
    options: { userId?: string | undefined; message?: string | undefined },
  ): Promise<unknown>;
}

/** Whether `value` is a workflow host the inspector can show and act through. */
export function isInspectedWorkflows(value: unknown): value is InspectedWorkflows {
  if (typeof value !== 'object' || value === null) return false;
  const host = value as Partial<Record<keyof InspectedWorkflows, unknown>>;
  return (
    typeof host.name === 'string' &&
    host.name !== '' &&
    typeof host.machine === 'object' &&
    host.machine !== null &&
    typeof host.approve === 'function' &&
    typeof host.reject === 'function'
  );
}

/** The app's workflow hosts the inspector was given, by name. */
export class InspectorWorkflows {
  private readonly byName: ReadonlyMap<string, InspectedWorkflows>;

  constructor(hosts: readonly InspectedWorkflows[] = []) {
    this.byName = new Map(hosts.map((h) => [h.name, h]));
  }

  /** The names of the hosts (the page offers the workflows tab when there is one). */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The host of workflow `name`, if the inspector was given it. */
  find(name: string | undefined): InspectedWorkflows | undefined {
    return name === undefined ? undefined : this.byName.get(name);
  }

  /**
   * The host that acts on an instance of workflow `name`: a 409 `WRONG_WORKFLOW` for one this
   * inspector was not given (it reads that instance but cannot drive it).
   */
  host(id: string, name: string): InspectedWorkflows {
    const host = this.find(name);
    if (host) return host;
    throw new HttpError(
      409,
      'WRONG_WORKFLOW',
      `Workflow instance "${id}" is of workflow "${name}", which this inspector does not host (it hosts ${
        this.names()
          .map((n) => `"${n}"`)
          .join(', ') || 'none'
      })`,
    );
  }
}
