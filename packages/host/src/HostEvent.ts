/** HostEvent: what happens to a host's servers, as a Stream of events. */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"

/** One thing that happened to one server of the host. */
export type HostEvent = Data.TaggedEnum<{
  /** The server is being connected (attempt 1 at start, then after each restart). */
  ServerStarting: { readonly server: string; readonly attempt: number }
  /** The server is connected. */
  ServerUp: {
    readonly server: string
    readonly revision: string
    readonly serverInfo: { readonly name: string; readonly version: string }
    readonly pid: number | undefined
  }
  /** The server's connection ended or could not be made. */
  ServerDown: { readonly server: string; readonly reason: string }
  /** The server will be connected again after a delay. */
  ServerRestarting: { readonly server: string; readonly attempt: number; readonly delay: Duration.Duration }
  /** The restart schedule gave up: the server stays down until restarted by hand. */
  ServerGaveUp: { readonly server: string; readonly reason: string; readonly attempts: number }
  /** The server's tools, resources or prompts were (re)listed. */
  CatalogueChanged: {
    readonly server: string
    readonly tools: number
    readonly resources: number
    readonly prompts: number
  }
  /** The server was stopped (host shutdown). */
  ServerStopped: { readonly server: string }
  /** The host has shut down: the last event. */
  HostStopped: { readonly server?: undefined }
}>

/** Constructors and matchers of host events. */
export const HostEvent = Data.taggedEnum<HostEvent>()

/** One line saying what an event means, for people. */
export const describe = (event: HostEvent): string =>
  HostEvent.$match(event, {
    ServerStarting: (e) => `${e.server}: starting (attempt ${e.attempt})`,
    ServerUp: (e) =>
      `${e.server}: up: ${e.serverInfo.name} ${e.serverInfo.version}, revision ${e.revision}${
        e.pid === undefined ? "" : `, pid ${e.pid}`
      }`,
    ServerDown: (e) => `${e.server}: down: ${e.reason}`,
    ServerRestarting: (e) =>
      `${e.server}: restarting in ${Math.round(Duration.toMillis(e.delay))} ms (attempt ${e.attempt})`,
    ServerGaveUp: (e) => `${e.server}: gave up after ${e.attempts} attempts: ${e.reason}`,
    CatalogueChanged: (e) => `${e.server}: ${e.tools} tools, ${e.resources} resources, ${e.prompts} prompts`,
    ServerStopped: (e) => `${e.server}: stopped`,
    HostStopped: () => "host: stopped"
  })
