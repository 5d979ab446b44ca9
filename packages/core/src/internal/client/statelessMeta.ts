/**
 * The `_meta` every 2026-07-28 request carries in place of a handshake: the revision, the client's info and
 * capabilities, and the log level. Built once per connection and rebuilt only when the revision or the log level
 * changes, so a call adds no object for it.
 */
import { Json, type Mcp, type Revision } from "@effect-mcp/schema"

/** The `_meta` keys of the 2026-07-28 revision. */
export const metaKeys = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  serverInfo: "io.modelcontextprotocol/serverInfo"
} as const

/** A built `_meta`, with the revision and log level it was built for. */
export interface MetaCache {
  readonly rev: Revision.Revision
  readonly level: unknown
  readonly meta: object
}

/** What the stateless `_meta` is built from, and where the last one built is kept. */
export interface MetaSource {
  readonly clientInfo: Mcp.Implementation
  readonly capabilities: Mcp.ClientCapabilities
  readonly logLevel: Mcp.LoggingLevel | undefined
  metaCache: MetaCache | undefined
}

/** The `_meta` of a stateless request for `rev`: the same object until the revision or the log level changes. */
export const statelessMeta = (source: MetaSource, rev: Revision.Revision): object => {
  const cached = source.metaCache
  if (cached !== undefined && cached.rev === rev && cached.level === source.logLevel) return cached.meta
  const logLevel = source.logLevel
  const meta = {
    [metaKeys.protocolVersion]: rev,
    [metaKeys.clientInfo]: source.clientInfo,
    [metaKeys.clientCapabilities]: source.capabilities,
    ...(logLevel === undefined ? {} : { [metaKeys.logLevel]: logLevel })
  }
  source.metaCache = { rev, level: logLevel, meta }
  return meta
}

/** A request's params with the stateless `_meta` added (over the request's own `_meta`, if it has one). */
export const withStatelessMeta = (source: MetaSource, rev: Revision.Revision, params: unknown): object => {
  const own = Json.record(params)._meta
  return {
    ...(params as object | undefined),
    _meta: own === undefined ? statelessMeta(source, rev) : { ...Json.record(own), ...statelessMeta(source, rev) }
  }
}
