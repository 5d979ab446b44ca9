// The install test: docs/getting-started.md, run as a new user would, against tarballs packed from this checkout
// (part of `npm test`, `node scripts/install-test.mjs` alone). Nothing is kept between runs: the tarballs are packed
// anew into a fresh temporary folder, and the user's project is another fresh folder outside the workspace, installed
// with npm from the npm registry (npm's own download cache holds only registry packages, which it checks by hash).
//
// The page is the script. Its fenced blocks, in order:
// - a block with `title=<path>` is a file of the project: written there;
// - `sh checkout`: run in this checkout, with `T` set to the tarballs' folder;
// - `sh`: each command (a line, with `\` continuations) run by bash in the project, with `T` set;
// - `sh background`: a server started in the project with `PORT=0` (any free port) and left running until the end;
//   its `listening on <url>` line gives its URL, which replaces the page's `http://127.0.0.1:3000/mcp` in the
//   commands after it;
// - `text output`: every line of it must appear in what the command before it printed.
// Besides, each tarball is opened: no `workspace:` range, no build info, and every file its `exports` and `bin` name.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const page = join(root, "docs", "getting-started.md")
const pageUrl = "http://127.0.0.1:3000/mcp"
const commandTimeout = 300_000
const listenTimeout = 300_000

/** The page's fenced blocks, in order: `{ info, body }`. */
export const blocks = (markdown) =>
  [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map(([, info, body]) => ({ info: info.trim(), body }))

/** A `sh` block's commands: its lines, `\` continuations joined, blank lines and comments left out. */
export const commands = (body) =>
  body
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))

const stripAnsi = (text) => text.replace(/\x1b\[[0-9;]*m/g, "")

/** The environment of a user's shell: this run's npm and pnpm settings left out, colour off. */
const userEnv = (extra) =>
  Object.fromEntries(
    Object.entries({ ...process.env, NO_COLOR: "1", ...extra }).filter(([key]) => !/^(npm|pnpm)_/i.test(key))
  )

let passed = 0
let failed = 0
const pass = (what) => {
  passed++
  process.stderr.write(`install: ok   ${what}\n`)
}
const fail = (what, detail) => {
  failed++
  process.stderr.write(`install: FAIL ${what}\n${detail === undefined ? "" : `${detail}\n`}`)
}

/** Opens a tarball and checks what ships: no workspace ranges, no build info, every file exports and bin name. */
const checkTarball = (tarball, scratch) => {
  const into = mkdtempSync(join(scratch, "open-"))
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", into], { encoding: "utf8" })
  if (untar.status !== 0) return fail(`open ${tarball}`, untar.stderr)
  const pkg = join(into, "package")
  const text = readFileSync(join(pkg, "package.json"), "utf8")
  const manifest = JSON.parse(text)
  const problems = []
  if (text.includes("workspace:")) problems.push("a workspace: range is left in package.json")
  if (existsSync(join(pkg, "dist", ".tsbuildinfo"))) problems.push("dist/.tsbuildinfo is packed")
  // Every path an `exports` entry names, under any condition (conditions nest: `browser` → `types`, `default`).
  const paths = (entry) =>
    entry === null ? [] : typeof entry === "string" ? [entry] : Object.values(entry).flatMap(paths)
  const targets = Object.values(manifest.exports ?? {}).flatMap(paths).filter((target) => !target.includes("*"))
  for (const target of targets) if (!existsSync(join(pkg, target))) problems.push(`exports names ${target}, not packed`)
  for (const bin of Object.values(manifest.bin ?? {})) {
    if (!existsSync(join(pkg, bin))) problems.push(`bin ${bin} is not packed`)
    else if ((statSync(join(pkg, bin)).mode & 0o111) === 0) problems.push(`bin ${bin} is not executable`)
  }
  const named = manifest.bin === undefined ? "exports" : "exports and bin"
  if (problems.length === 0) pass(`${manifest.name}: what its ${named} name is packed, no workspace: range`)
  else fail(`${manifest.name}'s tarball`, problems.map((p) => `  ${p}`).join("\n"))
}

/**
 * Runs one command to its end, in a process group of its own that is killed whole when it overruns; resolves its exit
 * status (or signal) and output.
 */
const run = (command, cwd, env) =>
  new Promise((resolve) => {
    const child = spawn("bash", ["-ec", command], {
      cwd,
      env: userEnv(env),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk.toString()))
    child.stderr.on("data", (chunk) => (output += chunk.toString()))
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {}
    }, commandTimeout)
    child.on("close", (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, output: stripAnsi(output) })
    })
  })

/** Starts a server in the background; resolves it and its URL once it prints `listening on <url>`. */
const startServer = (command, cwd, env) =>
  new Promise((resolve) => {
    const child = spawn("bash", ["-ec", command], {
      cwd,
      env: userEnv({ ...env, PORT: "0" }),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const timer = setTimeout(() => resolve({ child, output }), listenTimeout)
    const onData = (chunk) => {
      output += chunk.toString()
      const match = /listening on (\S+)/.exec(stripAnsi(output))
      if (match !== null) {
        clearTimeout(timer)
        resolve({ child, url: match[1], output })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("exit", () => {
      clearTimeout(timer)
      resolve({ child, output })
    })
  })

/** Stops a background server's process group; resolves once it has exited. */
const stopServer = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.on("exit", () => resolve())
    try {
      process.kill(-child.pid, "SIGTERM")
    } catch {
      resolve()
    }
  })

const main = async () => {
  const started = Date.now()
  const scratch = mkdtempSync(join(tmpdir(), "effect-mcp-install-"))
  const tarballs = join(scratch, "tarballs")
  const project = join(scratch, "my-server")
  mkdirSync(project)
  const env = { T: tarballs }
  const servers = []
  let url
  let last
  try {
    for (const { info, body } of blocks(readFileSync(page, "utf8"))) {
      const title = /(?:^|\s)title=(\S+)/.exec(info)?.[1]
      if (title !== undefined) {
        mkdirSync(dirname(join(project, title)), { recursive: true })
        writeFileSync(join(project, title), body)
        continue
      }
      if (info === "sh checkout" || info === "sh") {
        const cwd = info === "sh" ? project : root
        for (const command of commands(body)) {
          const line = url === undefined ? command : command.replaceAll(pageUrl, url)
          const result = await run(line, cwd, env)
          last = { command: line, output: result.output }
          if (result.status === 0) pass(line)
          else fail(line, `  exit ${result.status ?? result.signal}\n${last.output.slice(-4000)}`)
        }
        if (info === "sh checkout") for (const tarball of readdirTgz(tarballs)) checkTarball(tarball, scratch)
      } else if (info === "sh background") {
        for (const command of commands(body)) {
          const server = await startServer(command, project, env)
          servers.push(server.child)
          if (server.url === undefined) fail(`${command} (no "listening on <url>" line)`, server.output.slice(-4000))
          else {
            url = server.url
            pass(`${command}: listening on ${url}`)
          }
        }
      } else if (info === "text output") {
        const missing = body.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !last?.output.includes(l))
        if (last === undefined) fail("an output block before any command")
        else if (missing.length === 0) pass(`${last.command} printed what the page shows`)
        else fail(`${last.command} did not print: ${missing.join(" | ")}`, last.output.slice(-4000))
      } else if (info.startsWith("sh")) {
        fail(`a block \`${info}\` this test does not know how to run`)
      }
    }
  } finally {
    await Promise.all(servers.map(stopServer))
  }
  for (const child of servers) {
    if (child.exitCode === 0 || child.signalCode === "SIGTERM") pass("the HTTP server stopped on SIGTERM")
    else fail(`the HTTP server exited ${child.exitCode ?? child.signalCode} on SIGTERM`)
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0)
  if (failed === 0) rmSync(scratch, { recursive: true, force: true })
  else process.stderr.write(`install: the project is kept in ${project}\n`)
  process.stdout.write(`install: ${passed} passed, ${failed} failed (${seconds} s)\n`)
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1
}

/** The tarballs in a folder (none when it does not exist). */
const readdirTgz = (folder) =>
  existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith(".tgz")).map((f) => join(folder, f)) : []

if (import.meta.url === `file://${process.argv[1]}`) await main()
