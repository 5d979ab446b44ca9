/**
 * Light scope finalizers for plain releases. `Effect.addFinalizer` (and so `Effect.acquireRelease`) keeps a copy of
 * the fiber's refs per finalizer, about 600 bytes; these keep only the release, which is what a connection's
 * bookkeeping needs.
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"

/** Runs `release` when the current scope closes (in the closing fiber, with its refs). */
export const onClose = (release: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, release))

/** Acquires with `acquire` and releases with `release` when the current scope closes; both are synchronous. */
export const acquireSync = <A>(acquire: () => A, release: (a: A) => void): Effect.Effect<A, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.uninterruptible(
      Effect.flatMap(
        Effect.sync(acquire),
        (a) => Effect.as(Scope.addFinalizer(scope, Effect.sync(() => release(a))), a)
      )
    ))
