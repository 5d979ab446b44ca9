/**
 * The folder that keeps V8's compiled code between runs (`CodeCache`), and its files. Compiled code is run as it is
 * read, so it is read only from a folder that this user owns and no one else can write: by default one of its own in
 * the OS's temp folder, made with mode 0700. Every failure (a folder another user made, a full disk, a read-only file
 * system) means no cache, never an error: the cache only saves time. Plain `node:fs`, not Effect: this runs before the
 * program (and Effect) is loaded, which is the time it saves.
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** The default folder: this user's own in the OS's temp folder. */
export const defaultDirectory = (): string => {
  const user = process.getuid?.() ?? Os.userInfo().username
  return Path.join(Os.tmpdir(), `effect-mcp-code-cache-${user}`)
}

/**
 * Makes the folder (0700) if it is missing; whether it is this user's alone: a folder (not a link to one, which
 * someone else may have planted in a shared temp folder), owned by this user, that no one else can write.
 */
export const ensurePrivate = (directory: string): boolean => {
  try {
    Fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
    const stat = Fs.lstatSync(directory)
    const uid = process.getuid?.()
    return stat.isDirectory() && (uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0))
  } catch {
    return false
  }
}

/**
 * The cache file of a source: named by its file and a hash of its bytes, Node's version, the platform and Node's flags
 * (V8 rejects a cache made under other flags: runs with `--cpu-prof` or `--expose-gc` keep their own).
 */
export const cacheFile = (directory: string, file: string, source: Uint8Array): string => {
  const flags = `${process.execArgv.join(" ")}\0${process.env.NODE_OPTIONS ?? ""}`
  const hash = Crypto.createHash("sha256")
    .update(source)
    .update(`\0${process.version}\0${process.arch}\0${file}\0${flags}`)
    .digest("hex")
    .slice(0, 24)
  return Path.join(directory, `${Path.basename(file)}-${hash}.v8`)
}

/** The cache file's bytes, if there are any. */
export const read = (file: string): Buffer | undefined => {
  try {
    return Fs.readFileSync(file)
  } catch {
    return undefined
  }
}

/** Writes the cache file whole or not at all (a temporary file renamed over it), and private to this user. */
export const write = (file: string, data: Buffer): void => {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    Fs.writeFileSync(temporary, data, { mode: 0o600 })
    Fs.renameSync(temporary, file)
  } catch {
    try {
      Fs.rmSync(temporary, { force: true })
    } catch {
      // nothing was written, or it cannot be removed either: the next run tries again
    }
  }
}
