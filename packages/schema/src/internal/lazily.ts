/**
 * A value built on first use: the generated revision modules declare each schema this way, so that importing them
 * builds none, and a process builds only the schemas of the revisions and types it meets.
 */

/** A function that builds its value on the first call and returns that same value afterwards. */
export const lazily = <A>(build: () => A): () => A => {
  let built: A | undefined
  return () => (built ??= build())
}
