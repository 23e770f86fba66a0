const two = (n: number) => String(n).padStart(2, '0');

/**
 * An epoch-ms time as ISO 8601 in an IANA time zone, with the zone's offset at that instant:
 * `2027-03-29T09:00:00+02:00` in Europe/Berlin, `2027-03-29T07:00:00+00:00` in UTC (the
 * milliseconds only when there are some). Daylight saving is the zone's own (`Intl`).
 * @throws RangeError for a zone the runtime does not know.
 */
export function zonedIso(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((p) => p.type === type)?.value);
  const [year, month, day] = [part('year'), part('month'), part('day')];
  const [hour, minute, second] = [part('hour'), part('minute'), part('second')];
  const millis = ((ms % 1000) + 1000) % 1000;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const offset = Math.round((wall - (ms - millis)) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}` +
    (millis === 0 ? '' : `.${String(millis).padStart(3, '0')}`) +
    `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`
  );
}
