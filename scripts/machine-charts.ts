/**
 * `npx tsx scripts/machine-charts.ts`: draws the session and run machines into
 * docs/machines.md as Mermaid `stateDiagram-v2` charts and transition tables, walking the
 * machine definitions exported by src/machines (states, initial states, transitions with
 * their events and guards, invoked actors, final states). `test/docs/docs-machines.test.ts` fails
 * when the page is stale; run this script after changing a machine.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import prettier from 'prettier';
import type { AnyStateMachine } from 'xstate';
import { runMachine } from '../src/machines/run-machine.js';
import { sessionMachine } from '../src/machines/session-machine.js';
import { walk, type Edge, type NodeLike } from '../src/inspect/machine-graph.js';

export { walk, type NodeLike } from '../src/inspect/machine-graph.js';

/** The page the script writes, from the repository root. */
export const MACHINES_PAGE = fileURLToPath(new URL('../docs/machines.md', import.meta.url));
/** The README, whose picture of the two machines the script also draws (compact). */
export const README = fileURLToPath(new URL('../README.md', import.meta.url));

/**
 * Mermaid ids of a machine's states: a state's own key where no other state has it (Mermaid
 * ids are global to a chart), else its path (`approvals.checking` -> `approvals_checking`).
 */
function mermaidIds(nodes: readonly NodeLike[], pathOf: (id: string) => string) {
  const count = new Map<string, number>();
  for (const node of nodes) count.set(node.key, (count.get(node.key) ?? 0) + 1);
  const byPath = new Map<string, string>();
  for (const node of nodes) {
    const path = pathOf(node.id);
    byPath.set(path, count.get(node.key) === 1 ? node.key : path.replaceAll('.', '_'));
  }
  return (path: string) => byPath.get(path) ?? path.replaceAll('.', '_');
}

/**
 * A state machine as a Mermaid `stateDiagram-v2` chart. `compact` (the README's picture)
 * draws one arrow per pair of states, its events joined, with the guards of eventless
 * transitions only and `done` / `error` for an invoked actor's outcome.
 */
export function mermaidChart(machine: AnyStateMachine, { compact = false } = {}): string {
  const { root, nodes, edges, pathOf } = walk(machine);
  const mermaidId = mermaidIds(nodes, pathOf);
  const lines = ['stateDiagram-v2'];
  const label = (e: Edge) =>
    compact
      ? e.event === 'always'
        ? (e.guard ?? '').replace('inline', '')
        : e.event.replace(/^on(Done|Error)\(.*\)$/, (_m, kind: string) => kind.toLowerCase())
      : `${e.event}${e.guard ? ` [${e.guard}]` : ''}`;
  const drawn = new Set<Edge>();
  /** Arrows of one level, merged per pair of states when compact. */
  const arrows = (pad: string, list: { from: string; to: string; label: string }[]) => {
    const merged = new Map<string, { from: string; to: string; labels: string[] }>();
    for (const [index, a] of list.entries()) {
      const key = compact ? `${a.from} ${a.to}` : String(index);
      const entry = merged.get(key) ?? { from: a.from, to: a.to, labels: [] };
      if (a.label && !entry.labels.includes(a.label)) entry.labels.push(a.label);
      merged.set(key, entry);
    }
    for (const a of merged.values()) {
      const text = a.labels.join(', ');
      lines.push(`${pad}${a.from} --> ${a.to}${text ? ` : ${text}` : ''}`);
    }
  };
  const emit = (node: NodeLike, depth: number) => {
    const pad = '  '.repeat(depth);
    const path = pathOf(node.id);
    for (const child of Object.values(node.states)) {
      const id = mermaidId(pathOf(child.id));
      if (id !== child.key) lines.push(`${pad}state "${child.key}" as ${id}`);
    }
    const initial = node.initial?.target[0];
    if (initial) lines.push(`${pad}[*] --> ${mermaidId(pathOf(initial.id))}`);
    for (const child of Object.values(node.states)) {
      const id = mermaidId(pathOf(child.id));
      if (Object.keys(child.states).length > 0) {
        lines.push(`${pad}state ${id} {`);
        emit(child, depth + 1);
        lines.push(`${pad}}`);
      }
      for (const invoked of child.invoke) {
        if (typeof invoked.src === 'string') lines.push(`${pad}${id} : invokes ${invoked.src}`);
      }
      if (child.type === 'final') lines.push(`${pad}${id} --> [*]`);
    }
    // Transitions between the states of this level, drawn inside it.
    const siblings = new Set(Object.values(node.states).map((c) => pathOf(c.id)));
    const level: { from: string; to: string; label: string }[] = [];
    for (const edge of edges) {
      if (drawn.has(edge) || !siblings.has(edge.from)) continue;
      if (!edge.targets.every((t) => siblings.has(t))) continue;
      drawn.add(edge);
      for (const target of edge.targets) {
        level.push({ from: mermaidId(edge.from), to: mermaidId(target), label: label(edge) });
      }
    }
    if (path === '') {
      // Across levels, and from the machine itself ("from any state"), at the top.
      for (const edge of edges) {
        if (drawn.has(edge) || edge.targets.length === 0) continue;
        drawn.add(edge);
        for (const target of edge.targets) {
          if (edge.from === '') {
            lines.push(`${pad}note right of ${mermaidId(target)} : any state on ${label(edge)}`);
            continue;
          }
          level.push({ from: mermaidId(edge.from), to: mermaidId(target), label: label(edge) });
        }
      }
    }
    arrows(pad, level);
  };
  emit(root, 1);
  return lines.join('\n');
}

/** A state machine's transitions as a Markdown table, in the definition's order. */
export function transitionTable(machine: AnyStateMachine): string {
  const { nodes, edges, pathOf } = walk(machine);
  const rows = ['| state | kind | event | guard | target |', '| --- | --- | --- | --- | --- |'];
  const code = (s: string) => `\`${s}\``;
  for (const node of nodes) {
    const path = pathOf(node.id);
    const state = path === '' ? '(any state)' : code(path);
    const kind =
      path === ''
        ? ''
        : [
            node.type,
            node.initial?.target[0] ? `initial ${code(pathOf(node.initial.target[0].id))}` : '',
            ...node.invoke.map((i) => `invokes ${code(String(i.src))}`),
          ]
            .filter(Boolean)
            .join(', ');
    const own = edges.filter((e) => e.from === path);
    if (own.length === 0) {
      if (path !== '') rows.push(`| ${state} | ${kind} | | | |`);
      continue;
    }
    for (const [index, e] of own.entries()) {
      const targets =
        e.targets.length === 0 ? '(stays; actions only)' : e.targets.map(code).join(', ');
      rows.push(
        `| ${index === 0 ? state : ''} | ${index === 0 ? kind : ''} | ${code(e.event)} | ${e.guard ? code(e.guard) : ''} | ${targets} |`,
      );
    }
  }
  return rows.join('\n');
}

/** docs/machines.md, formatted with the repository's Prettier settings. */
export async function machinesPage(): Promise<string> {
  const section = (title: string, about: string, machine: AnyStateMachine) =>
    [
      `## ${title}`,
      about,
      ['```mermaid', mermaidChart(machine), '```'].join('\n'),
      'Every transition, in the order the definition lists them:',
      transitionTable(machine),
    ].join('\n\n');
  const text = [
    '# The two machines',
    '<!-- Generated by `npx tsx scripts/machine-charts.ts` from src/machines; do not edit. test/docs/docs-machines.test.ts fails when this page is stale. -->',
    "A session's lifecycle and each run's execution are two XState machines, pure (no I/O): every side effect is an actor the runtime provides by name. The session machine invokes the run machine as its child `run` while a run executes, so one persisted session snapshot holds the run's snapshot and its in-flight steps. A sub-agent run is the run machine again, spawned by its parent run as the child actor `subRun`. Guards written inline in the definition show as `inline`; `[*]` marks initial and final states.",
    section(
      'Session lifecycle (`sessionMachine`)',
      'Source: `src/machines/session-machine.ts`. An event the current state does not list is refused by the runtime before anything is saved (`InvalidSessionTransitionError`).',
      sessionMachine(),
    ),
    section(
      'Run execution (`runMachine`)',
      'Source: `src/machines/run-machine.ts` (the guardrail states come from `src/machines/guardrail-steps.ts`). Each `invokes` is a journaled step actor: `modelStep`, `approvalCheck`, `guardrailCheck`, `toolCall` (spawned per call in `tools`), `durableTimer`.',
      runMachine(),
    ),
    'Next: [Embedding an agent in your own machine](guides/embedding.md).',
  ].join('\n\n');
  const options = (await prettier.resolveConfig(MACHINES_PAGE)) ?? {};
  return prettier.format(text, { ...options, parser: 'markdown', proseWrap: 'always' });
}

/** The machines the README draws, by the name in its markers. */
const CHARTS: Record<string, AnyStateMachine> = { session: sessionMachine(), run: runMachine() };

/**
 * A README with its compact charts redrawn: each block between
 * `<!-- machine-chart:<name> -->` and `<!-- /machine-chart -->` (`session` or `run`).
 */
export function withReadmeCharts(readme: string): string {
  return readme.replace(
    /(<!-- machine-chart:(\w+) -->\n)[\s\S]*?(\n<!-- \/machine-chart -->)/g,
    (_all, open: string, name: string, close: string) => {
      const machine = CHARTS[name];
      if (!machine) throw new Error(`README.md: no machine named "${name}" to draw`);
      return `${open}\n\`\`\`mermaid\n${mermaidChart(machine, { compact: true })}\n\`\`\`\n${close}`;
    },
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(MACHINES_PAGE, await machinesPage());
  writeFileSync(README, withReadmeCharts(readFileSync(README, 'utf8')));
  console.log(`wrote ${MACHINES_PAGE} and the charts of ${README}`);
}
