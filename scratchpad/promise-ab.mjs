// Echo over stdio with our client driven from Promises (an `Effect.runPromise` per call, as `pnpm bench`'s rows "ours
// driven by a runPromise per call"), A/B between built checkouts, alternating in one run, each measurement in a fresh
// process: calls/s and each process's CPU per call (client: process.cpuUsage; server: /proc, 10 ms ticks), medians.
//   BASE=/path/to/other/checkout ROUNDS=7 CONC=64 node scratchpad/promise-ab.mjs
// BASE is a comma-separated list of other built checkouts (each with this script in its scratchpad/); "." is this one.
// DRIVE=promise|effect|runtime (default promise: `Effect.runPromise`; runtime: a ManagedRuntime's runPromise; effect:
// fibers of one Effect program), ALLOC=all|major (the runner alone: PROMISE_AB_RUNNER=ours; a sampled allocation
// profile of the measured calls to /tmp/promise-ab.heapprofile, for alloc-summary.mjs), PRELOAD=<module> imported first (a patch, for an experiment), and SDK=1 (adds SDK 1.32's pair to every round, for the ratio). N calls measured after
// WARM calls on each connection.
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const CONC = Number(process.env.CONC ?? 64), N = Number(process.env.N ?? 20000), WARM = Number(process.env.WARM ?? 5000)

/** A process's user and system CPU so far, in µs (Linux /proc, clock ticks of 10 ms). */
const cpuOf = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return { user: Number(f[11]) * 1e4, system: Number(f[12]) * 1e4 }
}

if (process.env.PROMISE_AB_RUNNER !== undefined) {
  // The runner: one connection, measured once, one JSON line out.
  if ((process.env.PRELOAD ?? "") !== "") await import(process.env.PRELOAD)
  const { connect } = await import("../scripts/bench/transports.mjs")
  const { drive } = await import("../scripts/bench-drive.mjs")
  const who = process.env.PROMISE_AB_RUNNER
  const peer = await connect(who === "sdk" ? "v1" : "ours", "stdio")
  const mode = process.env.DRIVE ?? "promise"
  if (who !== "sdk" && mode === "runtime") {
    const Effect = await import("effect/Effect")
    const Layer = await import("effect/Layer")
    const ManagedRuntime = await import("effect/ManagedRuntime")
    const runtime = ManagedRuntime.make(Layer.empty)
    await runtime.runPromise(Effect.void)
    peer.call = (text) => runtime.runPromise(peer.callEffect(text))
  }
  const promise = who === "sdk" || mode !== "effect"
  await drive(peer, CONC, WARM, { promise })
  // ALLOC=all samples what the measured calls allocate; ALLOC=major only what outlives the scavenges (promoted).
  const session = process.env.ALLOC === undefined ? undefined : new (await import("node:inspector/promises")).Session()
  if (session !== undefined) {
    session.connect()
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: process.env.ALLOC !== "major"
    })
  }
  const s0 = cpuOf(peer.serverPid), c0 = process.cpuUsage(), t0 = performance.now()
  await drive(peer, CONC, N, { promise })
  const ms = performance.now() - t0, c = process.cpuUsage(c0), s1 = cpuOf(peer.serverPid)
  if (session !== undefined) {
    const { profile } = await session.post("HeapProfiler.stopSampling")
    ;(await import("node:fs")).writeFileSync("/tmp/promise-ab.heapprofile", JSON.stringify(profile))
  }
  await peer.close()
  process.stdout.write(JSON.stringify({
    rps: N / ms * 1000,
    client: (c.user + c.system) / N,
    clientUser: c.user / N,
    server: (s1.user - s0.user + s1.system - s0.system) / N
  }) + "\n")
  process.exit(0)
}

// Each entry is a checkout, optionally with environment variables of its own: `dir|NAME=value|…`.
const checkouts = [".", ...(process.env.BASE?.split(",").filter((b) => b !== "") ?? [])].map((entry) => {
  const [d, ...vars] = entry.split("|")
  const dir = d === "." ? resolve(here, "..") : resolve(d)
  return { name: entry === "." ? dir : entry, dir, env: Object.fromEntries(vars.map((v) => v.split("="))) }
})
const who = [...checkouts.map((c) => ({ ...c, runner: "ours" })), ...(process.env.SDK === "1"
  ? [{ name: "sdk 1.32", dir: resolve(here, ".."), env: {}, runner: "sdk" }]
  : [])]
const runs = new Map(who.map((w) => [w.name, []]))
const ROUNDS = Number(process.env.ROUNDS ?? 7)
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (let round = 0; round < ROUNDS; round++) {
  // Alternate the order too, so that neither side always runs first.
  const order = round % 2 === 0 ? who : [...who].reverse()
  const line = []
  for (const w of order) {
    const out = execFileSync(process.execPath, [join(w.dir, "scratchpad", "promise-ab.mjs")], {
      cwd: w.dir,
      env: { ...process.env, ...w.env, PROMISE_AB_RUNNER: w.runner },
      encoding: "utf8"
    })
    const m = JSON.parse(out.trim().split("\n").at(-1))
    runs.get(w.name).push(m)
    line.push(`${w.name.split("/").at(-1)} ${m.rps.toFixed(0)}/s c ${m.client.toFixed(1)} s ${m.server.toFixed(1)}`)
  }
  console.log(`round ${round}: ${line.join(" | ")}`)
}
for (const [name, ms] of runs) {
  console.log(
    `${name}: median ${med(ms.map((m) => m.rps)).toFixed(0)}/s, client ${med(ms.map((m) => m.client)).toFixed(1)} µs/call (user ${
      med(ms.map((m) => m.clientUser)).toFixed(1)
    }), server ${med(ms.map((m) => m.server)).toFixed(1)} µs/call`
  )
}
if (process.env.SDK === "1") {
  const sdk = runs.get("sdk 1.32")
  for (const w of who.filter((x) => x.runner === "ours")) {
    const ratios = runs.get(w.name).map((m, i) => m.rps / sdk[i].rps)
    console.log(`${w.name}: median ratio to sdk 1.32 (per round) ${med(ratios).toFixed(2)}×`)
  }
}
