// Lint: library sources must never write to stdout (the stdio transport owns it), so `console.*`
// is refused in every packages/*/src file.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
const offenders = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p)
    else if (p.endsWith(".ts")) {
      readFileSync(p, "utf8").split("\n").forEach((line, i) => {
        if (/\bconsole\.[a-z]+\s*\(/.test(line)) offenders.push(`${p.slice(root.length)}:${i + 1}: ${line.trim()}`)
      })
    }
  }
}
for (const pkg of readdirSync(join(root, "packages"))) {
  const src = join(root, "packages", pkg, "src")
  try {
    if (statSync(src).isDirectory()) walk(src)
  } catch {}
}
if (offenders.length > 0) {
  process.stderr.write(`console.* is not allowed in packages/*/src (logs go through Effect's logger to stderr):\n${offenders.join("\n")}\n`)
  process.exit(1)
}
process.stderr.write("lint: no console.* in packages/*/src\n")
