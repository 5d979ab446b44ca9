// Reads a heap snapshot (argv[2]) and prints the dominator subtree of one element of the array held at
// `globalThis.__keep` (argv[3]: which element, default 0), to depth DEPTH (default 6), children under MIN bytes
// (default 150) folded: where one live pair's memory is, by what holds it alone. Use with heap-census.mjs SNAPSHOT=.
import { readFileSync } from "node:fs"
const snap = JSON.parse(readFileSync(process.argv[2], "utf8"))
const which = Number(process.argv[3] ?? 0)
// SKIP: names of edges that do not make their target shared (Effect's root fibers always; SKIP=connections,… more).
const SKIP = new Set(["roots", ...(process.env.SKIP ?? "").split(",").filter(Boolean)])
const DEPTH = Number(process.env.DEPTH ?? 6), MIN = Number(process.env.MIN ?? 150)
const m = snap.snapshot.meta
const nf = m.node_fields.length, ef = m.edge_fields.length
const nTypes = m.node_types[0], eTypes = m.edge_types[0]
const [nType, nName, nId, nSelf, nEdges] = ["type", "name", "id", "self_size", "edge_count"].map((k) => m.node_fields.indexOf(k))
const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((k) => m.edge_fields.indexOf(k))
const N = snap.nodes.length / nf
const firstEdge = new Uint32Array(N + 1)
for (let i = 0, e = 0; i < N; i++) { firstEdge[i] = e; e += snap.nodes[i * nf + nEdges] * ef; firstEdge[i + 1] = e }
const weak = eTypes.indexOf("weak"), shortcut = eTypes.indexOf("shortcut")
const edgeName = (e) => { const t = eTypes[snap.edges[e + eType]]; const v = snap.edges[e + eName]; return t === "element" || t === "hidden" ? `[${v}]` : snap.strings[v] }
// A closure's label ends with where its function is defined (file:line:column, from the snapshot's locations).
const locations = new Map()
for (let k = 0, lf = m.location_fields.length; k < snap.locations.length; k += lf) {
  locations.set(snap.locations[k] / nf, `${snap.locations[k + 2] + 1}:${snap.locations[k + 3] + 1}`)
}
const child = (i, name) => { for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += ef) if (snap.strings[snap.edges[e + eName]] === name && eTypes[snap.edges[e + eType]] !== "element" && eTypes[snap.edges[e + eType]] !== "hidden") return snap.edges[e + eTo] / nf }
const where = (i) => {
  const shared = child(i, "shared")
  const script = shared === undefined ? undefined : child(shared, "script_or_debug_info") ?? child(shared, "script")
  const file = script === undefined ? "?" : snap.strings[snap.nodes[script * nf + nName]].replace(/^.*\/node_modules\//, "").replace(/^.*\/packages\//, "")
  return ` @ ${file}:${locations.get(i) ?? "?"}`
}
const label = (i) => { const t = nTypes[snap.nodes[i * nf + nType]]; return `${t}:${snap.strings[snap.nodes[i * nf + nName]].slice(0, 60)}${t === "closure" ? where(i) : ""}` }
const succ = (i, f) => { for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += ef) { const t = snap.edges[e + eType]; if (t === weak || t === shortcut || SKIP.has(edgeName(e))) continue; f(snap.edges[e + eTo] / nf, e) } }
const dominate = (root, allowed) => {
  const order = new Int32Array(N).fill(-1), rpo = []
  const stack = [[root, firstEdge[root]]]; const seen = new Uint8Array(N); seen[root] = 1
  while (stack.length) { const top = stack[stack.length - 1]; const [i] = top; let pushed = false
    while (top[1] < firstEdge[i + 1]) { const e = top[1]; top[1] += ef; const t = snap.edges[e + eType]; if (t === weak || t === shortcut) continue; const j = snap.edges[e + eTo] / nf; if (!seen[j] && allowed(j)) { seen[j] = 1; stack.push([j, firstEdge[j]]); pushed = true; break } }
    if (!pushed && top[1] >= firstEdge[i + 1]) { stack.pop(); rpo.push(i) } }
  rpo.reverse(); rpo.forEach((n, k) => (order[n] = k))
  const preds = new Map()
  for (const i of rpo) succ(i, (j) => { if (order[j] >= 0) { let a = preds.get(j); if (!a) preds.set(j, a = []); a.push(i) } })
  const idom = new Int32Array(N).fill(-1); idom[root] = root
  const intersect = (a, b) => { while (a !== b) { while (order[a] > order[b]) a = idom[a]; while (order[b] > order[a]) b = idom[b] } return a }
  for (let changed = true; changed;) { changed = false
    for (let k = 1; k < rpo.length; k++) { const b = rpo[k]; let d = -1
      for (const p of preds.get(b) ?? []) if (idom[p] !== -1) d = d === -1 ? p : intersect(p, d)
      if (d !== -1 && idom[b] !== d) { idom[b] = d; changed = true } } }
  const retained = new Float64Array(N), kids = new Map()
  for (let k = rpo.length - 1; k > 0; k--) { const i = rpo[k]; retained[i] += snap.nodes[i * nf + nSelf]; retained[idom[i]] += retained[i]; let a = kids.get(idom[i]); if (!a) kids.set(idom[i], a = []); a.push(i) }
  retained[root] += snap.nodes[root * nf + nSelf]
  return { retained, kids: (i) => kids.get(i) ?? [], idom, preds }
}
// find globalThis.__keep
let keep = -1
for (let i = 0; i < N && keep < 0; i++) succ(i, (j, e) => { if (keep < 0 && nTypes[snap.edges[e + eType]] !== "element" && edgeName(e) === "__keep") keep = j })
if (keep < 0) throw new Error("no __keep")
let target = -1
succ(keep, (j, e) => { if (edgeName(e) === `[${which}]`) target = j })
if (target < 0) succ(keep, (j, e) => { if (target < 0 && nTypes[snap.edges[e + eType]] === "element") target = j })
// What is reachable without going through __keep is shared; the rest reachable from the target is the pair's own.
const shared = new Uint8Array(N)
// Effect's global set of root fibers (every daemon fiber) is not a holder: a pair's own fibers are in it.
{ const st = [0]; shared[0] = 1; while (st.length) { const i = st.pop(); if (i === keep) continue; succ(i, (j, e) => { if (!shared[j] && !SKIP.has(edgeName(e))) { shared[j] = 1; st.push(j) } }) } }
shared[keep] = 0
const { retained, kids, preds } = dominate(target, (j) => !shared[j])
// edge name from dominator to child where direct
const via = (p, c) => {
  let n = ""; succ(p, (j, e) => { if (j === c && !n) n = edgeName(e) }); if (n) return n
  const from = (preds.get(c) ?? []).slice(0, 2).map((q) => { let m = ""; succ(q, (j, e) => { if (j === c && !m) m = edgeName(e) }); return `${label(q)}.${m}` })
  return `(${from.join(" | ")}${(preds.get(c) ?? []).length > 2 ? " | …" : ""})`
}
const print = (i, depth, indent, parent) => {
  console.log(`${indent}${(retained[i] | 0).toString().padStart(7)} B ${via(parent, i) ? via(parent, i) + " → " : ""}${label(i)}`)
  if (depth >= DEPTH) return
  const cs = kids(i).sort((a, b) => retained[b] - retained[a])
  let small = 0, smallN = 0
  for (const c of cs) { if (retained[c] < MIN) { small += retained[c]; smallN++; continue } print(c, depth + 1, indent + "  ", i) }
  if (smallN) console.log(`${indent}  ${(small | 0).toString().padStart(7)} B (${smallN} smaller)`)
}
console.log(`pair owns ${(retained[target] / 1024).toFixed(1)} KB`)
print(target, 0, "", keep)
if (process.env.PATH_TO) {
  // A shortest path from the root to the target avoiding __keep: what else holds the pair.
  const prev = new Int32Array(N).fill(-1), pe = new Int32Array(N).fill(-1); prev[0] = 0
  const q = [0]
  for (let h = 0; h < q.length; h++) { const i = q[h]; if (i === keep) continue; succ(i, (j, e) => { if (prev[j] === -1 && !SKIP.has(edgeName(e))) { prev[j] = i; pe[j] = e; q.push(j) } }) }
  const path = []; for (let i = target; i !== 0 && prev[i] !== -1; i = prev[i]) path.push(`${edgeName(pe[i])} → ${label(i)}`)
  console.log(path.reverse().join("\n"))
}
