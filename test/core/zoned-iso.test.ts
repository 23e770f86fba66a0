import { describe, expect, it } from 'vitest';
import { zonedIso } from '../../src/core/zoned-iso.js';

describe('zonedIso', () => {
  it("writes a time in a zone with that zone's offset at that instant", () => {
    const at = Date.UTC(2027, 2, 29, 7);
    expect(zonedIso(at, 'Europe/Berlin')).toBe('2027-03-29T09:00:00+02:00');
    expect(zonedIso(Date.UTC(2027, 2, 27, 8), 'Europe/Berlin')).toBe('2027-03-27T09:00:00+01:00');
    expect(zonedIso(at, 'UTC')).toBe('2027-03-29T07:00:00+00:00');
    expect(zonedIso(at, 'America/St_Johns')).toBe('2027-03-29T04:30:00-02:30');
    expect(zonedIso(at, 'Asia/Kathmandu')).toBe('2027-03-29T12:45:00+05:45');
    expect(zonedIso(at + 5, 'UTC')).toBe('2027-03-29T07:00:00.005+00:00');
    // the hour Berlin skips and the one it repeats
    expect(zonedIso(Date.UTC(2027, 2, 28, 1), 'Europe/Berlin')).toBe('2027-03-28T03:00:00+02:00');
    expect(zonedIso(Date.UTC(2027, 9, 31, 0, 30), 'Europe/Berlin')).toBe(
      '2027-10-31T02:30:00+02:00',
    );
    expect(zonedIso(Date.UTC(2027, 9, 31, 1, 30), 'Europe/Berlin')).toBe(
      '2027-10-31T02:30:00+01:00',
    );
    expect(() => zonedIso(at, 'Mars/Olympus')).toThrow(RangeError);
  });
});
