import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/child-process.js';

const exec = promisify(execFile);

describe('examples/mcp.ts', () => {
  it('runs offline against the bundled stdio MCP server, which stops with the run', async () => {
    const { stdout, stderr } = await exec(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'examples', 'mcp.ts')],
      { cwd: repoRoot, timeout: 60_000 },
    );
    expect(stdout.trim().split('\n')).toEqual([
      'User: What is 100 °F in Celsius?',
      'Tool the model sees: units_convert_temperature: Converts a temperature between Celsius and Fahrenheit',
      '  parameters: {"type":"object","properties":{"value":{"type":"number","description":"the temperature to convert"},"from":{"type":"string","enum":["celsius","fahrenheit"],"description":"the unit of `value`"}},"required":["value","from"]}',
      'Model calls units_convert_temperature {"value":100,"from":"kelvin"}',
      'Tool error: Error: tool "units_convert_temperature" arguments do not match the schema: from: must be equal to one of the allowed values',
      'Model calls units_convert_temperature {"value":100,"from":"fahrenheit"}',
      'Tool result: 100 °F = 37.8 °C',
      'Answer after 3 turns: 100 °F is 37.8 °C.',
    ]);
    // The server saw only the valid call, and stopped when the run's toolkit closed.
    const server = stderr
      .split('\n')
      .filter((line) => line.startsWith('[mcp-server '))
      .map((line) => line.replace(/^\[mcp-server \d+\] /, ''));
    expect(server).toEqual([
      'ready',
      'convert_temperature {"value":100,"from":"fahrenheit"} -> 100 °F = 37.8 °C',
      'stdin closed, stopping',
    ]);
  });
});
