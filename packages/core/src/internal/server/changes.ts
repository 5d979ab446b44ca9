/**
 * The server's changes as a handshake session sends them: list changes gathered for the debounce and sent as one
 * `list_changed` per list, and `resources/updated` for the URIs the client subscribed to. The session is the
 * server's change watcher from `initialize` on; a notification's fiber exists only while one is due, so an idle
 * session holds no fiber and no subscription for them.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { record } from "./meta.js"
import type { ChangeWatcher, ListKind, McpServerService } from "./service.js"
import type { SessionState } from "./state.js"

/** The notification that says a list changed. */
export const listChangedMethod = {
  tools: "notifications/tools/list_changed",
  resources: "notifications/resources/list_changed",
  prompts: "notifications/prompts/list_changed"
} as const

/** How long list changes are gathered before they go out. */
export const debounceOf = (server: McpServerService): Duration.DurationInput =>
  server.options.listChangedDebounce ?? Duration.millis(10)

/**
 * Makes the session the server's change watcher until its connection ends (started by `initialize`; the session's
 * release forgets it, and a session whose connection has ended already does not watch).
 */
export const startPushes = (session: SessionState & ChangeWatcher): void => {
  if (!session.engine.isClosed()) session.runtime.watch(session)
}

/** Records a change; changes within the debounce of the first one go out as one notification per list. */
export const listChanged = (session: SessionState, kind: ListKind): void => {
  ;(session.changedKinds ??= new Set()).add(kind)
  if (session.flushDue) return
  session.flushDue = true
  session.engine.background(Effect.zipRight(Effect.sleep(debounceOf(session.server)), flushChanges(session)))
}

/** Sends `notifications/resources/updated` when the client subscribed to the URI. */
export const resourceUpdated = (session: SessionState, uri: string): void => {
  const rev = session.revision
  if (rev !== undefined && session.subscriptions?.has(uri) === true) {
    session.engine.background(session.notify("notifications/resources/updated", rev, { uri }))
  }
}

/** Sends one `list_changed` per list changed since the last flush, for the lists the session declared it for. */
const flushChanges = (session: SessionState): Effect.Effect<void> =>
  Effect.suspend(() => {
    session.flushDue = false
    const kinds = [...(session.changedKinds ?? [])]
    session.changedKinds?.clear()
    const rev = session.revision
    if (!session.ready || rev === undefined) return Effect.void
    return Effect.forEach(kinds, (kind) => {
      const declared = record(record(session.serverCapabilities)[kind])
      return declared.listChanged === true ? session.notify(listChangedMethod[kind], rev, {}) : Effect.void
    }, { discard: true })
  })
