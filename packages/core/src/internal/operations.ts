/**
 * An object's public operations as own accessors made from one shared descriptor each: an accessor hands out the
 * object's operation, made on first use and kept in the object's `Made` slot. The operations stay own, enumerable
 * properties (destructuring them works, and a spread copies them, as middleware decorating a client or a registry
 * does), but an object holds a function only for each operation it is used through, where a bound field holds one
 * per operation whether it is used or not (56 bytes each: a client has 19, a registry 20; docs/benchmarks.md, "Heap
 * per pair, session 23").
 */

/** The slot where an object keeps the operations made so far. */
export const Made: unique symbol = Symbol.for("@effect-mcp/core/operations/made")

/** An object whose operations are made on first use. */
export interface Holder {
  [Made]: Record<string, unknown> | undefined
}

/** How each operation of `Self` is made, by name. */
export type Makers<Self, Ops> = { readonly [K in keyof Ops]: (self: Self) => Ops[K] }

/** The accessors to define on each object (`Object.defineProperties(this, descriptors)` in its constructor). */
export const descriptors = <Self extends Holder, Ops>(makers: Makers<Self, Ops>): PropertyDescriptorMap => {
  const map: PropertyDescriptorMap = {}
  for (const name of Object.keys(makers) as Array<keyof Ops & string>) {
    const make = makers[name]
    map[name] = {
      enumerable: true,
      get(this: Self) {
        const made = (this[Made] ??= {})
        return made[name] ??= make(this)
      }
    }
  }
  return map
}
