/** An intrusive doubly linked FIFO: O(1) push, shift and removal from the middle (aborts). */
export interface Linked<T> {
  prev: T | undefined;
  next: T | undefined;
  listed: boolean;
}

export class WaitList<T extends Linked<T>> {
  head: T | undefined;
  tail: T | undefined;
  size = 0;

  push(item: T): void {
    item.prev = this.tail;
    item.next = undefined;
    if (this.tail) this.tail.next = item;
    else this.head = item;
    this.tail = item;
    item.listed = true;
    this.size++;
  }

  remove(item: T): void {
    if (!item.listed) return;
    if (item.prev) item.prev.next = item.next;
    else this.head = item.next;
    if (item.next) item.next.prev = item.prev;
    else this.tail = item.prev;
    item.prev = item.next = undefined;
    item.listed = false;
    this.size--;
  }
}
