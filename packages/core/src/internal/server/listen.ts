/**
 * `subscriptions/listen` (2026-07-28): acknowledges exactly the supported subset of what the client asked for, then
 * forwards the opted-in list changes (gathered for the debounce) and resource updates, each tagged with the listen
 * request's id, until the request is cancelled.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { debounceOf, listChangedMethod } from "./changes.js"
import type { Handler } from "./handler.js"
import { metaKeys, record } from "./meta.js"

type Acknowledged =
  & {
    -readonly [K in "toolsListChanged" | "promptsListChanged" | "resourcesListChanged"]?: true
  }
  & { resourceSubscriptions?: ReadonlyArray<string> }

/** The handler of `subscriptions/listen`. */
export const listen: Handler<"subscriptions/listen"> = (session, params, ctx) =>
  Effect.scoped(Effect.gen(function*() {
    const server = session.server
    const wanted = params.notifications
    const caps = record(server.capabilities())
    const can = (kind: string, flag: string) => record(caps[kind])[flag] === true
    const ack: Acknowledged = {}
    if (wanted.toolsListChanged === true && can("tools", "listChanged")) ack.toolsListChanged = true
    if (wanted.promptsListChanged === true && can("prompts", "listChanged")) ack.promptsListChanged = true
    if (wanted.resourcesListChanged === true && can("resources", "listChanged")) ack.resourcesListChanged = true
    const uris = wanted.resourceSubscriptions !== undefined && can("resources", "subscribe")
      ? wanted.resourceSubscriptions
      : []
    if (wanted.resourceSubscriptions !== undefined && can("resources", "subscribe")) {
      ack.resourceSubscriptions = uris
    }
    // The subscription is named by the client's id; its notifications go out related to the request's own.
    const id = ctx.relatedId
    const meta = { [metaKeys.subscriptionId]: ctx.requestId }
    const rev = ctx.revision
    const debounce = debounceOf(server)
    const changes = yield* session.runtime.subscribeChanges()
    const updates = yield* session.runtime.subscribeUpdates()
    yield* session.notify("notifications/subscriptions/acknowledged", rev, { _meta: meta, notifications: ack }, id)
    const lists = Stream.fromQueue(changes).pipe(
      Stream.filter((kind) => ack[`${kind}ListChanged`] === true),
      Stream.groupedWithin(1024, debounce),
      Stream.mapEffect((kinds) =>
        Effect.forEach(new Set(kinds), (kind) => session.notify(listChangedMethod[kind], rev, { _meta: meta }, id), {
          discard: true
        })
      )
    )
    const updated = Stream.fromQueue(updates).pipe(
      Stream.filter((uri) => uris.includes(uri)),
      Stream.mapEffect((uri) => session.notify("notifications/resources/updated", rev, { uri, _meta: meta }, id))
    )
    yield* Stream.runDrain(Stream.merge(lists, updated))
    return { _meta: meta }
  }))
