/**
 * The racers of this directory (lock-racer.ts, record-racer.ts, template-racer.ts) started by name, for the race
 * tests; the starting and firing are bench/lib/racers.ts's, shared with bench/lock-race.ts.
 */
import { join } from "node:path";
import { type Racer, startRacer as start } from "../../../bench/lib/racers.ts";

export { deadOwner, fire, type Racer } from "../../../bench/lib/racers.ts";

export function startRacer(script: string, cfg: object): Racer {
  return start(join(import.meta.dirname, script), cfg);
}
