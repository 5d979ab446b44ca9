// Runs the project's pinned pnpm (12.4.2) with the given arguments, installing it into .tools/ first
// when the pnpm on PATH is missing or another version. Used by the README commands so that a fresh
// machine with only Node 20 and npm needs nothing else.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const PNPM_VERSION = "12.4.2"
const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const local = join(root, ".tools", "node_modules", "pnpm", "bin", "pnpm.mjs")

const onPath = () => {
  try {
    return execFileSync("pnpm", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  } catch {
    return undefined
  }
}

export const pnpmCommand = () => {
  if (onPath() === PNPM_VERSION) return ["pnpm", []]
  if (!existsSync(local)) {
    process.stderr.write(`installing pnpm@${PNPM_VERSION} into .tools/\n`)
    const r = spawnSync("npm", ["install", "--prefix", join(root, ".tools"), "--no-save", "--no-audit", "--no-fund", `pnpm@${PNPM_VERSION}`], { stdio: ["ignore", 2, 2] })
    if (r.status !== 0) process.exit(r.status ?? 1)
  }
  return [process.execPath, [local]]
}

export const runPnpm = (args) => {
  const [cmd, pre] = pnpmCommand()
  const r = spawnSync(cmd, [...pre, ...args], { stdio: "inherit", cwd: root })
  return r.status ?? 1
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(runPnpm(process.argv.slice(2)))
}
