/**
 * Child process of the secrets test: runs the real OpenAIModel, through an Agent with a real
 * LevelSessionStore, against a local Chat Completions server that fails in four ways (a 401
 * echoing the API key, a 500, a timeout, broken SSE streams), then one successful run. Prints
 * everything a careless app would print about each failure (the error inspected in full, its
 * JSON, the stored session view) and the final RunState JSON. The parent greps this output, the
 * child's stderr (Node warnings, the SDK's log at OPENAI_LOG=debug) and the LevelDB folder for
 * the key. The key comes in AGENTSTATE_TEST_KEY and is never printed.
 *
 *   node --import tsx test/helpers/secrets-process.ts <dbPath> <canary>
 */
import { inspect } from 'node:util';
import { Agent, LevelSessionStore, OpenAIModel, type Model } from '../../src/index.js';
import { chunk, completion, startChatCompletionsServer } from './chat-completions-server.js';

async function main(): Promise<void> {
  const [dbPath, canary] = process.argv.slice(2);
  const key = process.env['AGENTSTATE_TEST_KEY'];
  if (!dbPath || !canary || !key)
    throw new TypeError('usage: secrets-process.ts <dbPath> <canary>');
  const server = await startChatCompletionsServer();
  const store = await LevelSessionStore.open({ path: dbPath });
  try {
    // Two clients of the same model: only the timeout case gets a short timeout, so a slow
    // (shared, loaded) machine cannot turn the other failures into timeouts.
    const client = (timeoutMs: number) =>
      new OpenAIModel({
        model: 'local-model', // unpriced: its warning goes to stderr too
        apiKey: key,
        baseURL: server.baseURL,
        maxRetries: 0,
        timeoutMs,
      });
    const patient = client(120_000);
    const hasty = client(200);
    let current = patient;
    const model: Model = {
      name: patient.name,
      provider: patient.provider,
      generate: (request, options) => current.generate(request, options),
      stream: (request, options) => current.stream(request, options),
    };
    const agent = new Agent({ name: 'secrets', model, store });
    const runtime = agent.runtimeFor(store);
    const failures: [label: string, streamed: boolean][] = [
      ['401', false],
      ['500', false],
      ['timeout', false],
      ['broken-json', true],
      ['stream-error', true],
    ];
    server.enqueue(
      { status: 401, error: `Incorrect API key provided: ${key}.` },
      { status: 500, error: `The upstream rejected the request signed with ${key}` },
      { json: completion({ content: 'too late' }), delayMs: 60_000 },
      (_request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(chunk({ content: 'Hel' }))}\n\n`);
        res.end(`data: {"choices": [ broken for ${key}\n\n`);
      },
      (_request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(chunk({ content: 'Hel' }))}\n\n`);
        res.end(`data: ${JSON.stringify({ error: { message: `Key ${key} was revoked` } })}\n\n`);
      },
    );
    const session = { sessionId: 'secrets', userId: 'alice' };
    for (const [label, streamed] of failures) {
      const input = `${canary} ${label}`;
      current = label === 'timeout' ? hasty : patient;
      // A failed model call interrupts the run: its typed error is on the result.
      const result = streamed
        ? await (async () => {
            const stream = agent.stream(input, session);
            for await (const _ of stream) {
              // drain the events; the result carries the failure
            }
            return stream.result;
          })()
        : await agent.run(input, session);
      const error = result.error;
      if (!error) {
        console.log(`UNEXPECTED ${label} succeeded`);
        continue;
      }
      const { name, code, message } = error;
      const { status } = error as { status?: number };
      console.log(`ERROR ${label} ${JSON.stringify({ name, code, status, message })}`);
      console.log(inspect(error, { showHidden: true, depth: null }));
      console.log(`JSON ${label} ${JSON.stringify(error)}`);
      console.log(`VIEW ${label} ${JSON.stringify(await runtime.getSession(session))}`);
      console.log(`RESULT ${label} ${JSON.stringify(result.state)}`);
      await agent.cancel(session.sessionId, { userId: session.userId }); // the next one may run
    }
    server.enqueue({ json: completion({ content: 'All good now.' }) });
    const result = await agent.run(`${canary} final`, session);
    console.log(`STATE ${JSON.stringify(result.state)}`);
    const sent = server.requests.every((r) => r.headers.authorization === `Bearer ${key}`);
    console.log(`EVIDENCE ${JSON.stringify({ requests: server.requests.length, sent })}`);
  } finally {
    await store.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  // Only the message: the parent's assertions show whether it held a secret.
  console.error(`FAILED ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
