/**
 * The everything server's resources: a static text and a static binary resource, a template whose
 * `id` is substituted (and completed), and a watched resource that changes on a timer and tells
 * subscribers so.
 */
import { McpServer } from "@effect-mcp/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Media from "./Media.js"

/** `test://static-text`: plain text. */
export const StaticText = McpServer.resource({
  uri: "test://static-text",
  name: "static-text",
  title: "Static Text Resource",
  description: "A static text resource for testing",
  mimeType: "text/plain",
  read: Effect.succeed("This is the content of the static text resource.")
})

/** `test://static-binary`: a PNG, as a blob. */
export const StaticBinary = McpServer.resource({
  uri: "test://static-binary",
  name: "static-binary",
  title: "Static Binary Resource",
  description: "A static binary resource (a PNG image) for testing",
  mimeType: "image/png",
  read: Effect.succeed(Media.redPixelPngBytes)
})

/** The ids `test://template/{id}/data` completes. */
export const knownIds: ReadonlyArray<string> = ["1", "2", "3", "42", "123", "1234"]

/** `test://template/{id}/data`: JSON naming the id it was read with. */
export const Template = McpServer.resourceTemplate({
  uriTemplate: "test://template/{id}/data",
  name: "template",
  title: "Resource Template",
  description: "A resource template with parameter substitution",
  mimeType: "application/json",
  input: Schema.Struct({ id: Schema.NonEmptyString }),
  complete: { id: (value) => Effect.succeed(knownIds.filter((id) => id.startsWith(value))) },
  handler: ({ id }) => Effect.succeed(JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }))
})

/** The URI of the watched resource. */
export const watchedUri = "test://watched-resource"

/** The text of the watched resource after `version` updates. */
export const watchedText = (version: number) => `Watched resource content, version ${version}`

/** Settings of the watched resource. */
export interface WatchedOptions {
  /** How often it changes (default 3 s). */
  readonly interval?: Duration.DurationInput
}

/** `test://watched-resource`: changes every `interval` and sends `notifications/resources/updated` to subscribers. */
export const watched = (options: WatchedOptions = {}): Layer.Layer<never, never, McpServer.McpServer> =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      const version = yield* Ref.make(0)
      yield* Ref.update(version, (n) => n + 1).pipe(
        Effect.zipRight(server.notifyResourceUpdated(watchedUri)),
        Effect.repeat(Schedule.spaced(options.interval ?? Duration.seconds(3))),
        Effect.delay(options.interval ?? Duration.seconds(3)),
        Effect.forkScoped
      )
      return McpServer.resource({
        uri: watchedUri,
        name: "watched-resource",
        title: "Watched Resource",
        description: "A resource that changes every few seconds; subscribe to hear about it",
        mimeType: "text/plain",
        read: Effect.map(Ref.get(version), watchedText)
      })
    })
  )

/** Every resource of the everything server. */
export const layer = (options: { readonly watched?: WatchedOptions } = {}): Layer.Layer<
  never,
  never,
  McpServer.McpServer
> => Layer.mergeAll(StaticText, StaticBinary, Template, watched(options.watched))
