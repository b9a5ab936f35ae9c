/**
 * Synthetic but realistic traces for the demo: each execution follows one capability's workflow
 * with noise (a skipped optional step, an extra exploratory step, a failure that is retried), by one of
 * a few users, over the 30 days before `now`. Seeded: the same seed gives the same traces.
 */
import { mulberry32 } from "../../algorithms/random/rng.ts";
import type { ExecutionInput } from "../formats/schemas.ts";
import { DEMO_CAPABILITIES } from "./catalog.ts";

const USERS = ["ana", "bo", "chen", "dara", "eli"];
const EXTRA = ["fs.read_file", "docs.search", "git.status", "slack.read_channel", "http.get"];

export function demoTraces(count: number, seed: number, now: number): ExecutionInput[] {
  const rng = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const out: ExecutionInput[] = [];
  for (let i = 0; i < count; i++) {
    const cap = DEMO_CAPABILITIES[Math.floor(rng() ** 1.6 * DEMO_CAPABILITIES.length)]!;
    const start = now - Math.floor(rng() * 30 * 24 * 3600 * 1000);
    const steps: ExecutionInput["steps"] = [];
    const map = new Map<number, number>(); // workflow index → step index
    let t = start;
    let success = true;
    cap.workflow.forEach((w, wi) => {
      const optional = wi > 0 && wi < cap.workflow.length - 1 && !w.dep;
      if (optional && rng() < 0.15) return;
      if (rng() < 0.1) {
        t += 200;
        steps.push({ tool: pick(EXTRA), dependsOn: [], success: true, durationMs: 200, at: new Date(t) });
      }
      const ok = rng() > 0.06;
      const deps = (w.dep ?? []).map((d) => map.get(d)).filter((x): x is number => x !== undefined);
      t += 500;
      steps.push({
        tool: w.tool,
        dependsOn: deps,
        success: ok,
        durationMs: 100 + Math.floor(rng() * 900),
        at: new Date(t),
      });
      if (!ok) {
        if (rng() < 0.7) {
          t += 500;
          steps.push({ tool: w.tool, dependsOn: deps, success: true, durationMs: 300, at: new Date(t) });
        } else success = false;
      }
      map.set(wi, steps.length - 1);
    });
    out.push({
      id: `demo-${seed}-${i}`,
      user: pick(USERS),
      intent: pick(cap.intents),
      capability: cap.id,
      startedAt: new Date(start),
      success,
      steps,
    });
  }
  return out;
}
