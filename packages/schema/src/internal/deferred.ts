/**
 * A value that stands in for one built on first use. The generated domain module exports each of its schemas this
 * way (the `Mcp` namespace's values), so that importing the package builds none of them: a process builds only the
 * schemas it reads, and each when it first reads it.
 *
 * The stand-in forwards every read to the built value: a property (`ast`, `fields`, `annotations`, `pipe`), `in`
 * (`Schema.isSchema`), its keys and descriptors, its prototype, and a call. It is a function, as a schema is (every
 * Effect schema is a class), and each of its properties is reported configurable (it has none of its own). A schema
 * built from it (`Schema.Struct({ tool: Mcp.Tool })`) reads its `ast` once, so the built schema holds the real AST
 * and decoding never goes through the stand-in.
 */

/** A stand-in for `build()`'s value, built when anything first reads it (`build` is memoised by the caller). */
export const deferred = <A extends object>(build: () => A): A => {
  const handler: ProxyHandler<A> = {
    get: (_, key) => Reflect.get(build(), key),
    set: (_, key, value) => Reflect.set(build(), key, value),
    has: (_, key) => Reflect.has(build(), key),
    ownKeys: () => Reflect.ownKeys(build()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(build(), key)
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true }
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(build()),
    apply: (_, self, args) => Reflect.apply(build() as (...args: ReadonlyArray<unknown>) => unknown, self, args)
  }
  // An arrow function has no own property that a trap could contradict (`prototype` would be non-configurable).
  return new Proxy((() => undefined) as unknown as A, handler)
}
