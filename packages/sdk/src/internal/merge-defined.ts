/**
 * Layers objects left to right, a later value replacing an earlier one of the same name, except
 * that a value of `undefined` never replaces anything: `{ sort: undefined }` means "not given"
 * (an option left out, a parameter the caller did not set), so a default underneath it stands.
 * A name that is `undefined` everywhere stays out of the result. The result has no prototype, so
 * that a name such as `__proto__` is a name like any other, as it is in an object spread.
 */
export function mergeDefined<Layer extends object>(
  ...layers: ReadonlyArray<Readonly<Layer> | undefined>
): Layer {
  const merged: Record<string, unknown> = Object.create(null);
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const key in layer) {
      if (!Object.hasOwn(layer, key)) continue;
      const value = (layer as Record<string, unknown>)[key];
      if (value !== undefined) merged[key] = value;
    }
  }
  return merged as Layer;
}
