import {
  Usage,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';

/**
 * The peer's side of agentstate's `BenchModel` (bench/fixtures.ts), on the peer's own `Model`
 * interface: a user message last → call `add` once; otherwise (the tool result is last) →
 * answer with text. Zero latency; every message makes two model calls and one tool call. The
 * same arguments and answers as `benchScript`, numbered by this model's own call count.
 */
export class BenchPeerModel implements Model {
  private calls = 0;

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const callIndex = this.calls++;
    const items: AgentInputItem[] =
      typeof request.input === 'string'
        ? [{ type: 'message', role: 'user', content: request.input }]
        : request.input;
    const last = items[items.length - 1];
    const userLast = last?.type === 'message' && last.role === 'user';
    return {
      usage: new Usage(),
      responseId: `response-${callIndex}`,
      output: userLast
        ? [
            {
              type: 'function_call',
              callId: `call-${callIndex}`,
              name: 'add',
              arguments: JSON.stringify({ a: callIndex, b: 2 }),
              status: 'completed',
            },
          ]
        : [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: `The sum is ${callIndex + 2}.` }],
            },
          ],
    };
  }

  // The bench never streams.
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('BenchPeerModel does not stream');
  }
}
