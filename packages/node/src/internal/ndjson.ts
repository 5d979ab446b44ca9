/**
 * Newline-delimited JSON over bytes, as the stdio transport of MCP frames it: a splitter that cuts
 * a byte stream at `\n` (a byte that never occurs inside a multi-byte UTF-8 character, so chunks may
 * split anywhere), decodes each line as strict UTF-8, parses it as JSON and yields a frame, or a
 * malformed marker for a line that is not JSON; blank lines are skipped. And the encoder of one
 * message as one line.
 */
import { Transport } from "@effect-mcp/core"
import type { JsonRpc } from "@effect-mcp/schema"
import { TextDecoder } from "node:util"

/** Splitter settings. */
export interface Options {
  /** The longest line accepted, in bytes (default 64 MiB); a longer one becomes one malformed marker. */
  readonly maxLineBytes?: number
}

const newline = 0x0a
const carriageReturn = 0x0d
const defaultMaxLineBytes = 64 * 1024 * 1024

const preview = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat
}

/** Parses one complete line (without its `\n`); `undefined` for a blank line. */
export const parseLine = (bytes: Uint8Array, decoder: TextDecoder): Transport.Incoming | undefined => {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === carriageReturn ? bytes.length - 1 : bytes.length
  let text: string
  try {
    text = decoder.decode(bytes.subarray(0, end))
  } catch {
    return Transport.malformed("the line is not valid UTF-8")
  }
  if (text.trim() === "") return undefined
  try {
    return Transport.frame(JSON.parse(text))
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    return Transport.malformed(`the line is not JSON: ${preview(detail)}`)
  }
}

// `{"jsonrpc":"2.0","id":<id>,"result"` or `"error"`, the order every MCP implementation writes a response in.
const responseStart =
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,\s*"(?:result|error)"/
const lenient = new TextDecoder("utf-8")

/** The id of the response a line begins, read from its first bytes (undefined when it does not look like one). */
const responseIdOf = (start: Uint8Array): JsonRpc.RequestId | undefined => {
  const match = responseStart.exec(lenient.decode(start.subarray(0, 512)))
  if (match === null) return undefined
  try {
    const id: unknown = JSON.parse(match[1]!)
    return typeof id === "string" || Number.isSafeInteger(id) ? (id as JsonRpc.RequestId) : undefined
  } catch {
    return undefined
  }
}

/** The first `n` bytes of the concatenation of `parts`. */
const prefix = (parts: ReadonlyArray<Uint8Array>, n: number): Uint8Array => {
  const out = new Uint8Array(Math.min(n, parts.reduce((sum, p) => sum + p.length, 0)))
  let at = 0
  for (const part of parts) {
    if (at >= out.length) break
    const piece = part.subarray(0, out.length - at)
    out.set(piece, at)
    at += piece.length
  }
  return out
}

/** A stateful splitter: feed it chunks, get the complete lines' frames back. */
export interface Splitter {
  /** Consumes a chunk; returns what the complete lines in it (with the bytes held back before) parse to. */
  readonly push: (chunk: Uint8Array) => Array<Transport.Incoming>
  /** Returns what the unterminated last line parses to, at the end of the input. */
  readonly flush: () => Array<Transport.Incoming>
}

/** Makes a splitter. */
export const makeSplitter = (options: Options = {}): Splitter => {
  const max = options.maxLineBytes ?? defaultMaxLineBytes
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false })
  let held: Array<Uint8Array> = []
  let heldBytes = 0
  let discarding = false
  /** A line past the limit, given its first bytes (which may name the request it answers). */
  const tooLong = (start: Uint8Array) =>
    Transport.malformed(`the line is longer than ${max} bytes`, responseIdOf(start))

  const take = (last: Uint8Array): Uint8Array => {
    if (held.length === 0) return last
    const line = new Uint8Array(heldBytes + last.length)
    let at = 0
    for (const part of held) {
      line.set(part, at)
      at += part.length
    }
    line.set(last, at)
    held = []
    heldBytes = 0
    return line
  }

  const emit = (out: Array<Transport.Incoming>, line: Uint8Array) => {
    if (line.length > max) {
      out.push(tooLong(line))
      return
    }
    const incoming = parseLine(line, decoder)
    if (incoming !== undefined) out.push(incoming)
  }

  return {
    push: (chunk) => {
      const out: Array<Transport.Incoming> = []
      let start = 0
      for (;;) {
        const at = chunk.indexOf(newline, start)
        if (at === -1) break
        const piece = chunk.subarray(start, at)
        start = at + 1
        if (discarding) {
          discarding = false
          continue
        }
        emit(out, take(piece))
      }
      if (start < chunk.length && !discarding) {
        const rest = chunk.slice(start)
        if (heldBytes + rest.length > max) {
          const start = prefix([...held, rest], 512)
          held = []
          heldBytes = 0
          discarding = true
          out.push(tooLong(start))
        } else {
          held.push(rest)
          heldBytes += rest.length
        }
      }
      return out
    },
    flush: () => {
      const out: Array<Transport.Incoming> = []
      if (!discarding && heldBytes > 0) emit(out, take(new Uint8Array(0)))
      held = []
      heldBytes = 0
      discarding = false
      return out
    }
  }
}

/** Encodes one message or batch as one line of JSON (with its `\n`), or says why it cannot be. */
export const encodeNow = (message: Transport.Outgoing): string | Transport.TransportError => {
  try {
    return `${JSON.stringify(message)}\n`
  } catch (cause) {
    return new Transport.TransportError({ reason: "could not encode a message as JSON", cause })
  }
}
