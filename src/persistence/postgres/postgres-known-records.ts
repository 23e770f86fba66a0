/** Sessions whose last seen record text a store remembers for its one-statement save. */
const KNOWN_CAPACITY = 1000;

/**
 * The md5 of the record text a PostgreSQL store last read or wrote per session, with its
 * version (bounded: the least recently seen are forgotten first).
 */
export class KnownRecords {
  private readonly known = new Map<string, { version: number; md5: string }>();

  get(id: string): { version: number; md5: string } | undefined {
    return this.known.get(id);
  }

  set(id: string, seen: { version: number; md5: string }): void {
    this.known.delete(id);
    this.known.set(id, seen);
    if (this.known.size > KNOWN_CAPACITY) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }

  delete(id: string): void {
    this.known.delete(id);
  }
}
