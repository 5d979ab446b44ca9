/** HostError: the typed failures of a host's calls. */
import * as Data from "effect/Data"

/** The server is not connected (starting, restarting, given up or stopped), or its connection broke mid-call. */
export class ServerUnavailable extends Data.TaggedError("ServerUnavailable")<{
  readonly server: string
  readonly reason: string
}> {
  override get message(): string {
    return `server ${this.server} is unavailable: ${this.reason}`
  }
}

/** No server of the host has a tool by this (prefixed) name. */
export class ToolNotFound extends Data.TaggedError("ToolNotFound")<{ readonly name: string }> {
  override get message(): string {
    return `no server has a tool named ${this.name}`
  }
}

/** No server of the host has a prompt by this (prefixed) name. */
export class PromptNotFound extends Data.TaggedError("PromptNotFound")<{ readonly name: string }> {
  override get message(): string {
    return `no server has a prompt named ${this.name}`
  }
}

/** The host has no server by this name. */
export class UnknownServer extends Data.TaggedError("UnknownServer")<{ readonly server: string }> {
  override get message(): string {
    return `the host has no server named ${this.server}`
  }
}

/** No server lists this resource URI (or several do, and none was named). */
export class ResourceNotFound extends Data.TaggedError("ResourceNotFound")<{
  readonly uri: string
  readonly reason: string
}> {
  override get message(): string {
    return `cannot route ${this.uri}: ${this.reason}`
  }
}
