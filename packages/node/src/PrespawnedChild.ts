/**
 * A stdio server process started ahead of the transport that will speak to it, and its adoption by that transport.
 * A program that knows its server's command line before it has loaded (the `effect-mcp` command does: it follows
 * `--`) starts the server first, so that the two starts overlap, and its stdio client transport adopts the child later
 * (`StdioClientTransport.adopt`). The stdio client transport starts every child of its own through here too, so a
 * child started ahead is started exactly as the transport would start it.
 *
 * Until it is adopted, nothing reads the child: what it writes waits in its pipes (and their streams, paused until
 * their first reader comes, even after the child exits), and its start, a failure to start and its exit are kept,
 * then replayed to the adopter. A child nobody adopted is killed
 * with its process group when this process exits (`abandon` kills it sooner); it keeps this process alive no more
 * than an unstarted one would.
 *
 * Plain Node, not Effect: a launcher calls it before anything else loads.
 */
import { type ChildProcessByStdio, spawn as spawnProcess } from "node:child_process"
import { existsSync } from "node:fs"
import type { Readable, Writable } from "node:stream"
import * as ProcessGroup from "./internal/processGroup.js"

/** What to start, and how: the part of `StdioClientTransport.Options` that starts the process. */
export interface SpawnOptions {
  /** The program to run (looked up on PATH; never through a shell). */
  readonly command: string
  /** Its arguments, passed verbatim. */
  readonly args?: ReadonlyArray<string> | undefined
  /** Environment variables to set (`undefined` unsets one). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** Whether the child starts from this process's environment (default true). */
  readonly inheritEnv?: boolean | undefined
  /** The working directory of the child. */
  readonly cwd?: string | undefined
  /** What becomes of the child's stderr: forwarded to the logger (default), passed through, or dropped (its tail still kept for error reports). Only "inherit" starts it without a pipe. */
  readonly stderr?: "log" | "inherit" | "ignore" | undefined
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface Ended {
  /** Its exit code, when it exited by itself. */
  readonly code: number | null
  /** The signal that ended it, when one did. */
  readonly signal: NodeJS.Signals | null
}

/** A child the OS started: its id and its stdio. */
export interface Started {
  readonly _tag: "Started"
  /** Its process id (and, where process groups exist, its group's id). */
  readonly pid: number
  /** Its stdin. */
  readonly stdin: Writable
  /** Its stdout, untouched until adopted. */
  readonly stdout: Readable
  /** Its stderr (`undefined` when inherited), untouched until adopted. */
  readonly stderr: Readable | undefined
}

/** A child that could not be started, and why (the reason reads after "could not start <command line>: "). */
export interface Failed {
  readonly _tag: "Failed"
  /** Why, for people. */
  readonly reason: string
  /** The error that said so, when there was one. */
  readonly cause: unknown
}

/** How a start turned out. */
export type Start = Started | Failed

/** A server process started ahead of its transport. */
export interface PrespawnedChild {
  /** What it was started with. */
  readonly options: SpawnOptions
  /** How its start turned out, once the OS has said (`undefined` until then). */
  readonly start: Start | undefined
  /** How it ended, once it has (`undefined` while it runs). */
  readonly ended: Ended | undefined
  /** Whether a transport has taken it over. */
  readonly adopted: boolean
}

/** What an adopter is told: the start's outcome, then (for a started child) its exit; each at most once. */
export interface Adopter {
  /** Called once, with how the start turned out (at once when it is known already). */
  readonly started: (start: Start) => void
  /** Called once when a started child exits (at once when it has already). */
  readonly exited: (ended: Ended) => void
}

interface State {
  readonly options: SpawnOptions
  readonly handle: ChildProcessByStdio<Writable, Readable, Readable | null> | undefined
  start: Start | undefined
  ended: Ended | undefined
  adopter: Adopter | undefined
}

// A program may carry two copies of this module (a launcher and the program it loads are often bundled apart), and a
// child started by one copy is adopted through the other: a child carries its own controls, under a global symbol.
const controls = Symbol.for("@effect-mcp/node/PrespawnedChild/controls")

interface Controls {
  readonly adopt: (adopter: Adopter) => boolean
  readonly abandon: () => void
}

// Children not adopted yet; each one left when this process exits is killed with its group.
const unadopted = new Set<State>()
let exitHookInstalled = false

const kill = (state: State): void => {
  // Its pid is known as soon as the OS started it, before the 'spawn' event (the process may exit before that runs).
  // A child that has exited may have left what it started in its group.
  const pid = state.handle?.pid
  if (pid !== undefined && (state.ended === undefined || ProcessGroup.groupIsRunning(pid))) {
    ProcessGroup.signal(pid, "SIGKILL")
  }
}

const killUnadopted = (): void => {
  for (const state of unadopted) kill(state)
  unadopted.clear()
}

// Node resumes a child's stdout and stderr when the child exits unless something listens for 'readable' (so that an
// unread pipe does not hold the process), and what nobody reads then flows away. Until its first reader comes (the
// adopter's, after adoption), this listener keeps each stream paused and its data buffered, whenever the child exits.
const hold = (): void => {}

const holdUntilRead = (stream: Readable): void => {
  const onReader = (event: string | symbol, listener: unknown) => {
    if ((event !== "data" && event !== "readable") || listener === hold) return
    stream.removeListener("newListener", onReader)
    stream.removeListener("readable", hold)
  }
  stream.on("readable", hold)
  stream.on("newListener", onReader)
}

const refAll = (state: State, ref: boolean): void => {
  const handle = state.handle
  if (handle === undefined) return
  for (const stream of [handle, handle.stdin, handle.stdout, handle.stderr]) {
    if (stream === null) continue
    const refable = stream as { ref?: () => void; unref?: () => void }
    if (ref) refable.ref?.()
    else refable.unref?.()
  }
}

const settle = (state: State, start: Start): void => {
  if (state.start !== undefined) return
  state.start = start
  state.adopter?.started(start)
}

const adoptState = (state: State, adopter: Adopter): boolean => {
  if (state.adopter !== undefined) return false
  state.adopter = adopter
  unadopted.delete(state)
  refAll(state, true)
  if (state.start !== undefined) adopter.started(state.start)
  if (state.start?._tag === "Started" && state.ended !== undefined) adopter.exited(state.ended)
  return true
}

const abandonState = (state: State): void => {
  if (state.adopter !== undefined) return
  unadopted.delete(state)
  kill(state)
}

const view = (state: State): PrespawnedChild => {
  const child: PrespawnedChild = {
    options: state.options,
    get start() {
      return state.start
    },
    get ended() {
      return state.ended
    },
    get adopted() {
      return state.adopter !== undefined
    }
  }
  const own: Controls = { adopt: (adopter) => adoptState(state, adopter), abandon: () => abandonState(state) }
  Object.defineProperty(child, controls, { value: own, enumerable: false })
  return child
}

const controlsOf = (child: PrespawnedChild): Controls | undefined =>
  (child as PrespawnedChild & { readonly [controls]?: Controls })[controls]

/** Starts a server process as the stdio client transport would: its stdio piped (stderr inherited when asked), detached where process groups exist so that it leads its own, and never through a shell. */
export const spawn = (options: SpawnOptions): PrespawnedChild => {
  const failed = (reason: string, cause?: unknown): PrespawnedChild => {
    const state: State = { options, handle: undefined, start: undefined, ended: undefined, adopter: undefined }
    settle(state, { _tag: "Failed", reason, cause })
    return view(state)
  }
  if (options.cwd !== undefined && !existsSync(options.cwd)) {
    return failed(`its working directory ${options.cwd} does not exist`)
  }
  const env: Record<string, string | undefined> = options.inheritEnv === false ? {} : { ...process.env }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  let handle: ChildProcessByStdio<Writable, Readable, Readable | null>
  try {
    handle = spawnProcess(options.command, [...(options.args ?? [])], {
      stdio: ["pipe", "pipe", options.stderr === "inherit" ? "inherit" : "pipe"],
      env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      detached: process.platform !== "win32"
    }) as ChildProcessByStdio<Writable, Readable, Readable | null>
  } catch (error) {
    // Arguments Node refuses outright (a NUL byte in a word), and OS failures other than the common ones, throw.
    return failed(error instanceof Error ? error.message : String(error), error)
  }
  const state: State = { options, handle, start: undefined, ended: undefined, adopter: undefined }
  // Kept for the child's life: an 'error' after the start (a failed kill) must not crash the process, and neither
  // may a read error on a pipe nobody is reading at that moment (the readers report their own).
  handle.on("error", (error) => settle(state, { _tag: "Failed", reason: error.message, cause: error }))
  handle.stdout.on("error", () => {})
  handle.stderr?.on("error", () => {})
  holdUntilRead(handle.stdout)
  if (handle.stderr !== null) holdUntilRead(handle.stderr)
  handle.once("spawn", () =>
    settle(state, {
      _tag: "Started",
      pid: handle.pid as number,
      stdin: handle.stdin,
      stdout: handle.stdout,
      stderr: handle.stderr ?? undefined
    }))
  handle.once("exit", (code, signal) => {
    state.ended = { code, signal }
    if (state.adopter !== undefined && state.start?._tag === "Started") state.adopter.exited(state.ended)
  })
  unadopted.add(state)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on("exit", killUnadopted)
  }
  // Until adopted it holds this process no more than a child not yet started would.
  refAll(state, false)
  return view(state)
}

/**
 * Takes a child over: `adopter` is told how its start turned out and, for a started child, when it exits (what
 * already happened is replayed at once). The child's stdio is the adopter's from now on, and so is ending it.
 * Returns false, telling nothing, when the child was adopted already (or is not one `spawn` returned).
 */
export const adopt = (child: PrespawnedChild, adopter: Adopter): boolean => controlsOf(child)?.adopt(adopter) ?? false

/** Kills a child nobody adopted, with its process group (SIGKILL: it was sent nothing); an adopted child is its adopter's to end. */
export const abandon = (child: PrespawnedChild): void => controlsOf(child)?.abandon()
