/**
 * The host's supervision as telemetry, for a host that traces (`McpTelemetry.isOn` when it starts): each connection
 * attempt and each health check is a span (the requests they make are its children), and every supervision event
 * counts in `mcp.host.supervision.events`, by event and server. A host that does not trace pays nothing.
 */
import { McpTelemetry } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import type { HostEvent } from "../HostEvent.js"
import type * as Catalogue from "./catalogue.js"

/** The attribute that names the server a span or a count is about. */
export const serverAttribute = "mcp.host.server"

/** How many supervision events the host published, by `event` (the event's tag) and `mcp.host.server`. */
export const supervisionEvents = Metric.counter("mcp.host.supervision.events", {
  description: "Supervision events of an effect-mcp host (a server starting, up, down, restarting, giving up)",
  incremental: true
})

/** Whether the host traces, decided once when it starts. */
export const isOn: Effect.Effect<boolean> = McpTelemetry.isOn

/** `publish`, also counting each event when the host traces. */
export const counted = (publish: Catalogue.Publish, traced: boolean): Catalogue.Publish =>
  traced
    ? (event: HostEvent) =>
      Effect.zipRight(
        Metric.increment(Metric.taggedWithLabels(supervisionEvents, labelsOf(event))),
        publish(event)
      )
    : publish

/** The labels an event counts under. */
const labelsOf = (event: HostEvent): ReadonlyArray<MetricLabel.MetricLabel> =>
  event.server === undefined
    ? [MetricLabel.make("event", event._tag)]
    : [MetricLabel.make("event", event._tag), MetricLabel.make(serverAttribute, event.server)]

/** `effect` as a span of the host's about `server`, when the host traces. */
export const span = (
  traced: boolean,
  name: string,
  server: string,
  attributes: Readonly<Record<string, unknown>> = {}
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  traced ? Effect.withSpan(effect, name, { attributes: { [serverAttribute]: server, ...attributes } }) : effect
