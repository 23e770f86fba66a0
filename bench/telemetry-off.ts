/**
 * Telemetry off costs nothing measurable: W2 (300 sessions x 3 messages, 50 in flight) with
 * the default telemetry and no OpenTelemetry SDK registered (the API's no-op tracer and
 * meter) against the same agent with `telemetry: false` (no tracer, no meter at all).
 * The two alternate, round after round, so a noisy machine hits both alike.
 *
 *   npx tsx bench/telemetry-off.ts [rounds]     (default 7)
 */
import { cpus } from 'node:os';
import { Agent } from '../src/index.js';
import { add, BenchModel } from './fixtures.js';
import { median } from './stats.js';
import { runW2 } from './workloads/w2-many-conversations.js';

const rounds = Number(process.argv[2] ?? 7);
if (!Number.isInteger(rounds) || rounds < 1) throw new TypeError('rounds: a positive integer');

const agentWith = (telemetry: false | undefined): Agent =>
  new Agent({ name: 'bench', model: new BenchModel(), tools: [add], maxTurns: 10, telemetry });

const rates: Record<'noSdk' | 'off', number[]> = { noSdk: [], off: [] };
for (let r = 0; r < rounds; r++) {
  for (const mode of r % 2 === 0 ? (['noSdk', 'off'] as const) : (['off', 'noSdk'] as const)) {
    const run = await runW2({
      sessions: 300,
      agent: agentWith(mode === 'off' ? false : undefined),
    });
    rates[mode].push(run.messagesPerSecond);
    process.stderr.write(
      `[telemetry-off] round ${r + 1}/${rounds} ${mode}: ${run.messagesPerSecond.toFixed(0)} msg/s\n`,
    );
  }
}
const fmt = (xs: number[]) =>
  `median ${median(xs).toFixed(0)} msg/s (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}`);
console.log(`W2, 300 sessions x 3 messages, ${rounds} alternating rounds each`);
console.log(`  telemetry default, no SDK registered: ${fmt(rates.noSdk)}`);
console.log(`  telemetry: false:                     ${fmt(rates.off)}`);
console.log(`  ratio (no SDK / off): ${(median(rates.noSdk) / median(rates.off)).toFixed(3)}`);
