// Interleaved A/B of our sequential stdio client+server under two environments: runs prof-stdio-client.mjs
// (EFFECT=1, CONC=1, no profile) ROUNDS times with A_ENV and with B_ENV (space-separated K=V lists, inherited by the
// server it spawns), and prints each run's calls/s and the median of the per-round ratios B/A.
import { execFileSync } from "node:child_process"
const parse = (s) => Object.fromEntries((s ?? "").split(" ").filter(Boolean).map((kv) => kv.split("=")))
const A = parse(process.env.A_ENV), B = parse(process.env.B_ENV)
const ROUNDS = Number(process.env.ROUNDS ?? 8)
const run = (extra) => {
  const out = execFileSync(process.execPath, [new URL("./prof-stdio-client.mjs", import.meta.url).pathname], {
    env: { ...process.env, NOPROF: "1", CONC: process.env.CONC ?? "1", EFFECT: "1", ...extra }, encoding: "utf8"
  })
  return Number(/(\d+) calls\/s/.exec(out)[1])
}
const ratios = []
for (let i = 0; i < ROUNDS; i++) {
  const a = run(A), b = run(B)
  ratios.push(b / a)
  console.log(`round ${i}: A ${a}/s, B ${b}/s, B/A ${(b / a).toFixed(2)}`)
}
ratios.sort((x, y) => x - y)
console.log(`median B/A ${ratios[Math.floor(ratios.length / 2)].toFixed(3)}`)
