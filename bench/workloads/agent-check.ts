/**
 * The agent check (issue 45): `checkAgent` on the support example and on synthetic agent trees
 * (each agent with tools of every approval kind and sub-agents, half of them behind an
 * approval), timed per check. The chart's size (its states) is what the time follows: the
 * chart is found once, then explored once per approval that might gate a tool.
 */
import { z } from 'zod';
import { Agent, tool, type AnyTool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { checkAgent } from '../../src/agent-check/check-agent.js';
import { ChartGraph } from '../../src/agent-check/chart-graph.js';
import { specialisedRunChart } from '../../src/agent-check/specialised-run-chart.js';
import { support } from '../../examples/agents/support.js';
import { median, now } from '../stats.js';
import { rowsOf, type Row } from '../table.js';

/** One agent tree's figures in one run. */
export interface AgentCheckRun {
  tree: string;
  agents: number;
  states: number;
  tools: number;
  /** Median over the rounds of one run. */
  checkMs: number;
}

const model = new ScriptedModel([{ text: 'ok' }]);

/** A tree `depth` deep, `width` sub-agents and `tools` tools per agent. */
function tree(prefix: string, depth: number, width: number, tools: number): Agent {
  const own: AnyTool[] = Array.from({ length: tools }, (_, i) =>
    tool({
      name: `${prefix}_t${i}`,
      description: 'x',
      parameters: z.object({}),
      needsApproval: i % 3 === 0 ? true : i % 3 === 1 ? () => true : false,
      execute: () => i,
    }),
  );
  const subs = Array.from({ length: depth === 0 ? 0 : width }, (_, i) =>
    tree(`${prefix}${i}`, depth - 1, width, tools).asTool({
      name: `ask_${prefix}${i}`,
      description: 'x',
      needsApproval: i % 2 === 0,
    }),
  );
  return new Agent({ name: prefix, model, tools: [...own, ...subs] });
}

/** The trees checked, by name (smaller with `--smoke`). */
function trees(smoke: boolean): [string, Agent][] {
  const out: [string, Agent][] = [
    ['support example', support],
    ['13 agents (2 deep, 3 wide, 5 tools)', tree('a', 2, 3, 5)],
  ];
  if (!smoke) out.push(['40 agents (3 deep, 3 wide, 5 tools)', tree('a', 3, 3, 5)]);
  return out;
}

/** `npm run bench -- --agent-check`: the part's runs and its rows. */
export function agentCheckPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): { kind: string; rows: Row[]; targets: []; raw: { agentCheck: AgentCheckRun[][] } } {
  const rounds = config.smoke ? 1 : 5;
  const all: AgentCheckRun[][] = [];
  for (const [name, agent] of trees(config.smoke)) {
    const runs: AgentCheckRun[] = [];
    const states = new ChartGraph(specialisedRunChart(agent).machine).size;
    for (let run = 0; run < config.runs; run++) {
      log(`agent check: ${name}, run ${run + 1}/${config.runs}`);
      const times: number[] = [];
      let cert = checkAgent(agent);
      for (let round = 0; round < rounds; round++) {
        const started = now();
        cert = checkAgent(agent);
        times.push(now() - started);
      }
      runs.push({
        tree: name,
        agents: cert.agents.length,
        states,
        tools: cert.tools.length,
        checkMs: median(times),
      });
    }
    all.push(runs);
  }
  return { kind: 'agent check', rows: agentCheckRows(all), targets: [], raw: { agentCheck: all } };
}

/** The table's rows of the agent check part. */
export function agentCheckRows(all: AgentCheckRun[][]): Row[] {
  return all.flatMap((runs) =>
    rowsOf(`Agent check: ${runs[0]!.tree}`, runs, [
      ['agents', 'count', (r) => r.agents],
      ['chart states', 'count', (r) => r.states],
      ['tools reachable', 'count', (r) => r.tools],
      ['checkAgent', 'ms', (r) => r.checkMs],
    ]),
  );
}
