/**
 * MCP tools: an agent gets the tools of an MCP server (examples/mcp-server.ts, started as a
 * child process over stdio) through `mcpToolkit`, offline with the scripted model.
 *
 *   npx tsx examples/mcp.ts
 *
 * The model first calls the tool with an argument the server's JSON Schema refuses (a tool
 * error item, the server is not called), then correctly; the server's answer is the tool's
 * output. The server process starts with the run and stops when it ends.
 */
import { fileURLToPath } from 'node:url';
import { Agent } from '../src/index.js';
import { mcpToolkit } from '../src/mcp.js';
import { ScriptedModel } from '../src/testing.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = fileURLToPath(new URL('./mcp-server.ts', import.meta.url));

const units = mcpToolkit({
  name: 'units',
  connect: { command: process.execPath, args: ['--import', 'tsx', server], cwd: root },
  prefix: true,
});

const model = new ScriptedModel(
  (request) => {
    const results = request.items.filter((i) => i.type === 'tool_result');
    const convert = (from: string) => ({
      toolCalls: [{ name: 'units_convert_temperature', arguments: { value: 100, from } }],
    });
    if (results.length === 0) return convert('kelvin');
    if (results.length === 1) return convert('fahrenheit');
    return { text: `100 °F is ${results[1]!.output.split(' = ')[1]}.` };
  },
  { recordCalls: true },
);

const agent = new Agent({
  name: 'weather-helper',
  instructions: 'You convert temperatures with the tools you have.',
  model,
  toolkits: [units],
});

const question = 'What is 100 °F in Celsius?';
console.log(`User: ${question}`);
const result = await agent.run(question);

for (const spec of model.calls[0]!.tools) {
  console.log(`Tool the model sees: ${spec.name}: ${spec.description}`);
  console.log(`  parameters: ${JSON.stringify(spec.parameters)}`);
}
for (const item of result.newItems) {
  if (item.type === 'tool_call') console.log(`Model calls ${item.name} ${item.arguments}`);
  if (item.type === 'tool_result')
    console.log(`${item.isError ? 'Tool error' : 'Tool result'}: ${item.output}`);
}
console.log(`Answer after ${result.turns} turns: ${result.output}`);
