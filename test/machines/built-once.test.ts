import { describe, expect, it } from 'vitest';
import { builtOnce } from '../../src/machines/built-once.js';
import { runMachine } from '../../src/machines/run-machine.js';
import { sessionMachine } from '../../src/machines/session-machine.js';

describe('builtOnce', () => {
  it('builds at the first call, not before, and returns that same value after', () => {
    let builds = 0;
    const value = builtOnce(() => ({ n: ++builds }));
    expect(builds).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(builds).toBe(1);
  });

  it('keeps a built undefined too, and builds again after a build that threw', () => {
    let builds = 0;
    const nothing = builtOnce(() => {
      builds += 1;
      return undefined;
    });
    nothing();
    nothing();
    expect(builds).toBe(1);
    let fail = true;
    const flaky = builtOnce(() => {
      if (fail) throw new Error('not yet');
      return 'built';
    });
    expect(() => flaky()).toThrow('not yet');
    fail = false;
    expect(flaky()).toBe('built');
  });

  it('gives one machine definition per process: the session machine runs the run machine it gives', () => {
    expect(runMachine()).toBe(runMachine());
    expect(sessionMachine()).toBe(sessionMachine());
    expect(sessionMachine().implementations.actors['run']).toBe(runMachine());
  });
});
