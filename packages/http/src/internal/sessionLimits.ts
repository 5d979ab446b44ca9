/**
 * Who may open a session. The sessions of one server (Streamable HTTP and legacy HTTP+SSE alike) are counted in one
 * registry, under a bound on all of them and a bound on each client's. When a bound is reached, the least recently
 * active idle session makes room (idle: no stream open, no request in flight, no server→client request pending);
 * only when none is idle is the new session refused: 429 when the client is at its own bound, 503 when the server is
 * full. Clients are told apart by a key, by default the peer's address (an IPv6 peer by its /64, which one host
 * usually holds whole).
 */

/** A session as the registry sees it. */
export interface Member {
  /** The client it belongs to, or undefined when the client cannot be told apart (no per-client bound then). */
  readonly client: string | undefined
  /** Whether it may be evicted now. */
  readonly idle: () => boolean
}

/** The bounds. */
export interface Limits {
  /** At most this many sessions in all. */
  readonly maxSessions: number
  /** At most this many sessions of one client. */
  readonly maxSessionsPerClient: number
}

/** A new session was admitted; these sessions (already out of the registry) must be ended to make its room. */
export interface Admitted<M> {
  readonly _tag: "Admitted"
  readonly evicted: ReadonlyArray<M>
}

/** A new session was refused, with the HTTP status and message to answer. */
export interface Refused {
  readonly _tag: "Refused"
  readonly status: 429 | 503
  readonly message: string
}

/** The outcome of `admit`. */
export type Admission<M> = Admitted<M> | Refused

/** The sessions of a server, in the order of their last activity (least recent first). */
export interface Registry<M extends Member> {
  /** Admits a new session (it counts from now on), evicting idle ones to make room, or refuses it. */
  readonly admit: (member: M) => Admission<M>
  /** Records activity: the session moves to the end of the eviction order. */
  readonly touch: (member: M) => void
  /** Forgets a session (it ended); forgetting one twice does nothing. */
  readonly remove: (member: M) => void
  /** How many sessions there are. */
  readonly size: () => number
  /** How many sessions a client has. */
  readonly sizeOf: (client: string) => number
}

/**
 * The default bound of one client's sessions: 1,000 (or all of them on a smaller server). A client needs one session
 * a connection; 1,000 leaves room for many users behind one address (a NAT, every local client on 127.0.0.1), and it
 * takes ten addresses to fill a server of the default 10,000.
 */
export const defaultPerClient = (maxSessions: number): number => Math.max(1, Math.min(maxSessions, 1_000))

/** The message of a 429. */
export const clientFull = "Too many sessions for this client: end one (DELETE) before opening another"

/** The message of a 503. */
export const serverFull = "Too many sessions"

/** Makes an empty registry. */
export const make = <M extends Member>(limits: Limits): Registry<M> => {
  // Each session's last activity, as a tick of a counter. Touching one (twice per request on the "echo over HTTP"
  // rows) only overwrites its tick; the least recently active idle session is looked for only when a bound is reached,
  // by one pass over the sessions (the pass that found the first idle one before, in a Set re-inserted on every touch,
  // which cost a delete and an insert in two Sets per touch).
  const ticks = new Map<M, number>()
  const byClient = new Map<string, Set<M>>()
  const none: ReadonlySet<M> = new Set()
  let tick = 0

  const leastRecentIdle = (members: Iterable<M>, except: M | undefined): M | undefined => {
    let found: M | undefined
    let oldest = Infinity
    for (const m of members) {
      const t = ticks.get(m)!
      if (t < oldest && m !== except && m.idle()) {
        found = m
        oldest = t
      }
    }
    return found
  }

  const remove = (member: M) => {
    if (!ticks.delete(member) || member.client === undefined) return
    const own = byClient.get(member.client)
    if (own === undefined) return
    own.delete(member)
    if (own.size === 0) byClient.delete(member.client)
  }

  const admit = (member: M): Admission<M> => {
    const own = member.client === undefined ? undefined : byClient.get(member.client) ?? none
    // The victims are chosen before anything is evicted, so that a refusal leaves every session as it was.
    const ownFull = own !== undefined && own.size >= limits.maxSessionsPerClient
    const mine = ownFull ? leastRecentIdle(own, undefined) : undefined
    if (ownFull && mine === undefined) return { _tag: "Refused", status: 429, message: clientFull }
    const full = ticks.size - (mine === undefined ? 0 : 1) >= limits.maxSessions
    const any = full ? leastRecentIdle(ticks.keys(), mine) : undefined
    if (full && any === undefined) return { _tag: "Refused", status: 503, message: serverFull }
    const evicted: Array<M> = []
    for (const victim of [mine, any]) {
      if (victim === undefined) continue
      remove(victim)
      evicted.push(victim)
    }
    ticks.set(member, ++tick)
    if (member.client !== undefined) {
      const set = byClient.get(member.client)
      if (set === undefined) byClient.set(member.client, new Set([member]))
      else set.add(member)
    }
    return { _tag: "Admitted", evicted }
  }

  const touch = (member: M) => {
    if (ticks.has(member)) ticks.set(member, ++tick)
  }

  return {
    admit,
    touch,
    remove,
    size: () => ticks.size,
    sizeOf: (client) => byClient.get(client)?.size ?? 0
  }
}

// ---------- telling clients apart ----------

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
const ipv6Groups = (address: string): ReadonlyArray<number> | undefined => {
  const zone = address.indexOf("%")
  const bare = zone === -1 ? address : address.slice(0, zone)
  const halves = bare.split("::")
  if (halves.length > 2) return undefined
  const parse = (part: string) => (part === "" ? [] : part.split(":"))
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const groups: Array<number> = []
  for (const g of [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail]) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined
    groups.push(parseInt(g, 16))
  }
  return groups
}

/**
 * The client key of a peer address: an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4 form), an IPv6
 * address by its /64 prefix, anything else as it is.
 */
export const addressKey = (address: string): string => {
  const lower = address.toLowerCase()
  if (lower === "::1") return lower
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower)
  if (mapped !== null) return mapped[1]!
  if (!lower.includes(":")) return lower
  const groups = ipv6Groups(lower)
  if (groups === undefined) return lower
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`
}
