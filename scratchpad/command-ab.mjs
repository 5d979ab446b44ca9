// Commands A/B: runs each named command line in turn (interleaved, ROUNDS each, after one warm-up round) under
// /usr/bin/time, and reports medians of its wall time and its CPU time (user + system, its waited-for children included:
// a `call` counts the server it spawns). `node scratchpad/command-ab.mjs ROUNDS 'name=node -e 0' 'name2=node ...'`
import { spawnSync } from "node:child_process"

const rounds = Number(process.argv[2] ?? 10)
const commands = Object.fromEntries(process.argv.slice(3).map((a) => {
  const i = a.indexOf("=")
  return [a.slice(0, i), a.slice(i + 1).split(" ").map((w) => (w === "node" ? process.execPath : w))]
}))
const results = Object.fromEntries(Object.keys(commands).map((n) => [n, []]))
for (let i = 0; i < rounds + 1; i++) {
  for (const [name, argv] of Object.entries(commands)) {
    const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S", ...argv], { encoding: "utf8" })
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`)
    const [wall, user, sys] = r.stderr.trim().split("\n").pop().split(" ").map(Number)
    if (i > 0) results[name].push({ wall: wall * 1000, cpu: (user + sys) * 1000 })
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
for (const [name, rs] of Object.entries(results)) {
  const m = (k) => median(rs.map((r) => r[k])).toFixed(0)
  console.log(`${name.padEnd(12)} ${m("wall")} ms wall, ${m("cpu")} ms cpu`)
}
