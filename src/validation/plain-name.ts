/** Whether `text` is 1 to `max` characters, none of them a control character (an id, a name). */
export function isPlainName(text: unknown, max: number): text is string {
  if (typeof text !== 'string' || text.length === 0 || text.length > max) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}
