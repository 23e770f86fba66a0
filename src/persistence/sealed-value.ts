import { createRequire } from 'node:module';
import { InvalidSessionRecordError } from '../errors/session-errors.js';
import type { ErrorScope } from '../errors/agentstate-error.js';

/**
 * Integrity seal of every stored value: `#` + the CRC-32 (8 hex digits) of the key and the
 * JSON text, then the JSON text. The checksum covers the key too, so a flipped bit, a
 * truncated value and a value copied or moved to another key (a duplicated history item, a
 * record pasted under another session) all fail the check.
 *
 * Values written before the seal existed (agentstate 0.1) start with a JSON character, never
 * `#`; they are read as `legacy` and each reader decides whether it still accepts them.
 */
const MARK = '#';
const CRC_DIGITS = 8;
const HEADER = MARK.length + CRC_DIGITS;
const HEX = /^[0-9a-f]{8}$/;

/** What a stored value holds: its JSON text, and whether it carried a seal. */
export interface OpenedValue {
  json: string;
  legacy: boolean;
}

type Crc32 = (data: string, value?: number) => number;

/**
 * `node:zlib`'s `crc32`, loaded at the first seal or check instead of with the package (zlib
 * is ~4 ms of a cold import, and a process that never reads or writes a store never needs it).
 * Module-level, like an import: it holds Node's own function once loaded, never anything else.
 */
let zlibCrc32: Crc32 | undefined;

function crc32(data: string, value?: number): number {
  zlibCrc32 ??= (createRequire(import.meta.url)('node:zlib') as { crc32: Crc32 }).crc32;
  return zlibCrc32(data, value);
}

/** The two hex digits of each byte value (a lookup: `toString(16)` is a runtime call). */
const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, byte) =>
  byte.toString(16).padStart(2, '0'),
);

/** The checksum's 8 hex digits, as `crc.toString(16).padStart(8, '0')` writes them. */
const hex = (crc: number): string =>
  HEX_BYTES[crc >>> 24]! +
  HEX_BYTES[(crc >>> 16) & 0xff]! +
  HEX_BYTES[(crc >>> 8) & 0xff]! +
  HEX_BYTES[crc & 0xff]!;

function checksum(key: string, json: string): string {
  return hex(crc32(json, crc32(`${key}\u0000`)));
}

/** Seals the JSON text of a value for `key`. */
export function sealValue(key: string, json: string): string {
  return `${MARK}${checksum(key, json)}${json}`;
}

/** The checksum digits of a sealed value (`undefined` for an unsealed one): what names its bytes. */
export function sealOf(text: string): string | undefined {
  return text.startsWith(MARK) ? text.slice(MARK.length, HEADER) : undefined;
}

/**
 * Whether `text` holds exactly `json` under some seal or none (without checking the checksum:
 * for a value whose content is already known to be right, the checksum adds nothing).
 */
export function holdsJson(text: string, json: string): boolean {
  return (
    text === json ||
    (text.startsWith(MARK) && text.length === HEADER + json.length && text.endsWith(json))
  );
}

/**
 * Checks and strips the seal of the value stored at `key`. A damaged seal throws
 * `InvalidSessionRecordError` naming the key; an unsealed value comes back as `legacy`.
 */
export function openValue(key: string, text: string, scope: ErrorScope = {}): OpenedValue {
  if (!text.startsWith(MARK)) return { json: text, legacy: true };
  const stored = text.slice(MARK.length, HEADER);
  const json = text.slice(HEADER);
  if (!HEX.test(stored) || json.length === 0) {
    throw new InvalidSessionRecordError(key, 'the integrity seal is damaged or truncated', scope);
  }
  if (checksum(key, json) !== stored) {
    throw new InvalidSessionRecordError(
      key,
      'checksum mismatch: the stored bytes were changed, truncated or moved from another key',
      scope,
    );
  }
  return { json, legacy: false };
}
