/**
 * Whether `o` is an instance of exactly the class whose prototype is `proto`, with none of
 * `methods` replaced on the instance itself (a test's spy, `t.mock.method`, a wrapper): only
 * then may the router take the class's answers at once instead of through its Promise-typed
 * methods. A subclass, a `Proxy` (its target's private fields are not its own) or a patched
 * instance is asked through the methods, as any other implementation.
 */
export function exactly(o: object, proto: object, methods: readonly string[]): boolean {
  if (Object.getPrototypeOf(o) !== proto) return false;
  for (const m of methods) if (Object.hasOwn(o, m)) return false;
  return true;
}
