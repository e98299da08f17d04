// Spans waiting for something (an end, a start, children), in the order they came. Lookups scan a bounded number of
// candidates from either end, and entries that stopped waiting are removed lazily, so a hostile log of thousands of
// starts that never end costs each lookup the same.

export class LiveList<T> {
  private items: T[] = [];
  private head = 0;
  private dead = 0;

  constructor(private readonly alive: (item: T) => boolean) {}

  push(item: T): void {
    this.items.push(item);
  }

  /** Called once when an item stops being alive: the list is compacted when the dead outnumber the living. */
  noteDead(): void {
    this.dead++;
    const length = this.items.length - this.head;
    if (this.dead > 16 && this.dead * 2 > length) {
      this.items = this.items.slice(this.head).filter(this.alive);
      this.head = 0;
      this.dead = 0;
    }
  }

  /** The first living item (in order of arrival) that `fits`, among the first `limit` looked at. */
  oldest(fits: (item: T) => boolean, limit: number): T | undefined {
    while (this.head < this.items.length && !this.alive(this.items[this.head])) {
      this.head++;
      this.dead = Math.max(0, this.dead - 1);
    }
    const end = Math.min(this.items.length, this.head + limit);
    for (let i = this.head; i < end; i++) {
      const item = this.items[i];
      if (this.alive(item) && fits(item)) {
        return item;
      }
    }
    return undefined;
  }

  /** The last living item that `fits`, among the last `limit` looked at. */
  latest(fits: (item: T) => boolean, limit: number): T | undefined {
    while (this.items.length > this.head && !this.alive(this.items[this.items.length - 1])) {
      this.items.pop();
      this.dead = Math.max(0, this.dead - 1);
    }
    const end = Math.max(this.head, this.items.length - limit);
    for (let i = this.items.length - 1; i >= end; i--) {
      const item = this.items[i];
      if (this.alive(item) && fits(item)) {
        return item;
      }
    }
    return undefined;
  }
}
