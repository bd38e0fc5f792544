// Partitions by id, in an order the memory counters choose (append, move to the end), with O(1) access to
// the first. A plain Map cannot give that: V8 leaves deleted entries in place until it rehashes, so
// reading a Map's first entry after many deletions at its front walks every one of them (measured:
// 28 µs per eviction at 100,000 entries). Here the order is a doubly linked list through the entries.

export interface ListedPartition {
  readonly id: string;
  prev: ListedPartition | null;
  next: ListedPartition | null;
}

export class PartitionList<T extends ListedPartition> {
  readonly #byId = new Map<string, T>();
  #head: T | null = null;
  #tail: T | null = null;
  /** The next entry an incremental pass examines; null when no pass is under way. */
  #cursor: T | null = null;

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): T | undefined {
    return this.#byId.get(id);
  }

  first(): T | null {
    return this.#head;
  }

  /** Adds an entry that is in no list, at the end. */
  append(entry: T): void {
    this.#byId.set(entry.id, entry);
    entry.prev = this.#tail;
    entry.next = null;
    if (this.#tail) this.#tail.next = entry;
    else this.#head = entry;
    this.#tail = entry;
  }

  remove(entry: T): void {
    if (this.#byId.get(entry.id) !== entry) return;
    this.#byId.delete(entry.id);
    this.#unlink(entry);
  }

  moveToEnd(entry: T): void {
    if (this.#tail === entry || this.#byId.get(entry.id) !== entry) return;
    this.#unlink(entry);
    this.append(entry);
  }

  clear(): void {
    this.#byId.clear();
    this.#head = this.#tail = this.#cursor = null;
  }

  /** Starts a pass from the first entry (a pass under way starts over). */
  startPass(): void {
    this.#cursor = this.#head;
  }

  endPass(): void {
    this.#cursor = null;
  }

  get passing(): boolean {
    return this.#cursor !== null;
  }

  /**
   * Examines at most `budget` entries from where the pass stands, removing those `idle` says are.
   * Returns how many it examined and removed; `passing` turns false once the pass reached the end.
   */
  passStep(budget: number, idle: (entry: T) => boolean): { examined: number; removed: number } {
    let examined = 0;
    let removed = 0;
    while (this.#cursor && examined < budget) {
      const entry = this.#cursor;
      this.#cursor = entry.next as T | null;
      examined += 1;
      if (idle(entry)) {
        this.remove(entry);
        removed += 1;
      }
    }
    return { examined, removed };
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let entry = this.#head; entry;) {
      const next = entry.next as T | null;
      yield entry;
      entry = next;
    }
  }

  #unlink(entry: T): void {
    // A pass standing on this entry moves on first, so that it neither stops nor jumps.
    if (this.#cursor === entry) this.#cursor = entry.next as T | null;
    if (entry.prev) entry.prev.next = entry.next;
    else this.#head = entry.next as T | null;
    if (entry.next) entry.next.prev = entry.prev;
    else this.#tail = entry.prev as T | null;
    entry.prev = entry.next = null;
  }
}
