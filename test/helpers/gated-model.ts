import type { ModelCallOptions, ModelRequest, ModelStreamEvent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { deferred, lastUserText, type Deferred } from './session-fixtures.js';

/**
 * A chat model for attach tests: "add" calls `add`, a tool result is answered in a few words.
 * Its second call waits on `gate` once it started (`reached`), and streams its text's first
 * word, then waits on `midText` before the rest, and on `answered` before its answer is
 * journaled: the test decides when the run goes on.
 */
export class GatedModel extends ScriptedModel {
  reached: Deferred<void> = deferred();
  gate: Deferred<void> = deferred();
  midText: Deferred<void> = deferred();
  answered: Deferred<void> = deferred();

  constructor() {
    super((request) => {
      const last = request.items[request.items.length - 1];
      if (last?.type === 'tool_result') return { text: `The sum is ${last.output} today.` };
      if (lastUserText(request) === 'add') {
        return { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 }, callId: 'add_1' }] };
      }
      return { text: `You said: ${lastUserText(request)}` };
    });
  }

  override async *stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncIterable<ModelStreamEvent> {
    const second = this.callCount === 1;
    if (second) {
      this.reached.resolve();
      await this.gate.promise;
    }
    let deltas = 0;
    for await (const event of super.stream(request, options)) {
      if (second && event.type === 'text_delta' && deltas++ === 1) await this.midText.promise;
      if (second && event.type === 'response') await this.answered.promise;
      yield event;
    }
  }

  open(): void {
    this.gate.resolve();
    this.midText.resolve();
    this.answered.resolve();
  }
}
