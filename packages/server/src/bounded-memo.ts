/**
 * @internal `compute`, remembered for up to `maxEntries` distinct keys: for pure functions whose
 * keys repeat on the hot path (a client's address, a list query). Past the bound the memory starts
 * anew rather than growing, so no caller can make it hold more than `maxEntries` values.
 */
export function boundedMemo<Value>(
  compute: (key: string) => Value,
  maxEntries: number,
): (key: string) => Value {
  const remembered = new Map<string, Value>();
  return (key) => {
    if (remembered.has(key)) return remembered.get(key) as Value;
    const value = compute(key);
    if (remembered.size >= maxEntries) remembered.clear();
    remembered.set(key, value);
    return value;
  };
}
