/** The texts marked by {@link bookkeepingWrite}. */
const marked = new Set<string>();

/**
 * @internal Marks `sql` as the delivery worker's own bookkeeping: a write whose loss in a crash
 * only makes the worker do its work again (an event fanned out again, a webhook sent again), never
 * loses one; returns it unchanged. On the embedded database, whose driver hands a write's result
 * over only after a WAL flush that makes it durable (group commit, `docs/decisions.md`), such a
 * statement's result is handed over at once: its write is flushed by the next flush, which every
 * other query or transaction that ends after it waits for, as for any write. The claim is not
 * marked, so a webhook is sent only once the event, its delivery and everything else written
 * before the claim are durable. On PostgreSQL each commit is durable before it answers, and the
 * mark changes nothing.
 */
export function bookkeepingWrite(sql: string): string {
  marked.add(sql);
  return sql;
}

/** @internal Whether `sql` was marked by {@link bookkeepingWrite}. */
export function isBookkeepingWrite(sql: string): boolean {
  return marked.has(sql);
}
