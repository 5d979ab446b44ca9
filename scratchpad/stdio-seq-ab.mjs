// Sequential echo over stdio, ours against SDK 1.32 (each with its own server, as `pnpm bench` connects them),
// interleaved ROUNDS times on fresh connections warmed with WARM calls, CALLS measured calls each: calls/s per round,
// the per-round ratio and the median ratio. PIN=split|same pins the two processes (below). The quick way to see whether a change moves the stdio sequential row.
import { connect } from "../scripts/bench/transports.mjs"
import { drive } from "../scripts/bench-drive.mjs"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
/** A process's user and system CPU so far, in µs (Linux /proc, clock ticks of 10 ms: long runs only). */
const cpuOf = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return { user: Number(f[11]) * 1e4, system: Number(f[12]) * 1e4 }
}
const ROUNDS = Number(process.env.ROUNDS ?? 6), CALLS = Number(process.env.CALLS ?? 20000), WARM = Number(process.env.WARM ?? 5000)
const CONC = Number(process.env.CONC ?? 1)
const rate = async (who) => {
  const peer = await connect(who, "stdio")
  // PIN=split puts this process (all its threads) on CPU 0 and the server on CPU 1; PIN=same puts both on CPU 0.
  if (process.env.PIN !== undefined) {
    execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" })
    execFileSync("taskset", ["-a", "-p", "-c", process.env.PIN === "split" ? "1" : "0", String(peer.serverPid)], { stdio: "ignore" })
  }
  await drive(peer, CONC, WARM)
  const s0 = cpuOf(peer.serverPid), c0 = process.cpuUsage(), t0 = performance.now()
  await drive(peer, CONC, CALLS)
  const r = CALLS / (performance.now() - t0) * 1000
  const s1 = cpuOf(peer.serverPid), c = process.cpuUsage(c0)
  await peer.close()
  const us = (x) => (x / CALLS).toFixed(0)
  console.log(`  ${who}: client user ${us(c.user)} sys ${us(c.system)}, server user ${us(s1.user - s0.user)} sys ${us(s1.system - s0.system)} µs/call`)
  return r
}
const ratios = []
for (let i = 0; i < ROUNDS; i++) {
  const o = await rate("ours"), t = await rate("v1")
  ratios.push(o / t)
  console.log(`round ${i}: ours ${o.toFixed(0)}/s, sdk 1.32 ${t.toFixed(0)}/s, ${(o / t).toFixed(2)}×`)
}
ratios.sort((a, b) => a - b)
console.log(`median ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}×`)
