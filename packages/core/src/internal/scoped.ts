/**
 * Light scope finalizers for plain releases. `Effect.addFinalizer` (and so `Effect.acquireRelease`) keeps a copy of
 * the fiber's refs per finalizer, about 600 bytes; these keep only the release, which is what a connection's
 * bookkeeping needs. `whenClosed` keeps less still: the release function itself is the scope's finalizer.
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"

/** Runs `release` when the current scope closes (in the closing fiber, with its refs). */
export const onClose = (release: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, release))

/**
 * Calls `release` when `scope` closes and runs the Effect it returns (in the closing fiber, with its refs); a scope
 * closed already calls it at once. The scope keeps `release` alone, where `onClose` keeps an Effect and a function
 * that wraps it (about 250 bytes less a finalizer; a connection has several): pass a function made where it closes
 * over little, such as an object's bound field.
 */
export const whenClosed = (scope: Scope.Scope, release: () => Effect.Effect<void>): Effect.Effect<void> =>
  Scope.addFinalizerExit(scope, release)

/** Acquires with `acquire` and releases with `release` when the current scope closes; both are synchronous. */
export const acquireSync = <A>(acquire: () => A, release: (a: A) => void): Effect.Effect<A, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.uninterruptible(
      Effect.flatMap(
        Effect.sync(acquire),
        (a) => Effect.as(Scope.addFinalizer(scope, Effect.sync(() => release(a))), a)
      )
    ))
