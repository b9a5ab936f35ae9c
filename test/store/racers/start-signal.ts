/**
 * The racers' starting gun: each racer says it is ready (prints "ready"), then polls the file `go` until the
 * test writes the shared start instant (ms since the epoch) into it.
 */
import { readFileSync } from "node:fs";

export async function startSignal(go: string): Promise<number> {
  process.stdout.write("ready\n");
  for (;;) {
    try {
      const t = Number(readFileSync(go, "utf8"));
      if (Number.isFinite(t) && t > 0) return t;
    } catch {
      /* not written yet */
    }
    await new Promise((res) => setTimeout(res, 5));
  }
}
