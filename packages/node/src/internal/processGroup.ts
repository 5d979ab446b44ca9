/**
 * Process groups: whether any live process is left in a group, and signalling a whole group. A child
 * spawned detached leads its own group, so signalling the group reaches everything it started (a
 * shell's children, what `npx` runs) unless one of them left the group on purpose.
 *
 * On Linux, liveness is read from /proc so that zombies (dead, waiting for a parent that may reap
 * them late) do not count; elsewhere `kill(-pgid, 0)` answers.
 */
import { readdirSync, readFileSync } from "node:fs"

const hasProc = (() => {
  try {
    return process.platform === "linux" && readdirSync("/proc").length > 0
  } catch {
    return false
  }
})()

/** The state letter and process group of a process, from /proc/<pid>/stat. */
const stat = (pid: string): { readonly state: string; readonly pgrp: number } | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return { state: fields[0] ?? "", pgrp: Number(fields[2]) }
  } catch {
    return undefined
  }
}

/** Whether a process is running (not gone, not a zombie). */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  if (!hasProc) return true
  const s = stat(String(pid))
  return s !== undefined && s.state !== "Z" && s.state !== "X"
}

/** Whether any process of the group led by `pgid` is still running. */
export const groupIsRunning = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  if (!hasProc) return true
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue
    const s = stat(entry)
    if (s !== undefined && s.pgrp === pgid && s.state !== "Z" && s.state !== "X") return true
  }
  return false
}

/** Sends a signal to every process of a group (or to the one process where groups are not a thing). */
export const signal = (pgid: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(process.platform === "win32" ? pgid : -pgid, sig)
  } catch {
    // The group is gone already.
  }
}
