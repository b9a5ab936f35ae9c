/**
 * Finding what blocks the event loop, for the benches.
 *
 * `blockSampler()`: a 10 ms timer that notes every tick arriving more than `thresholdMs` (50) late, with the
 * phase the bench was in (`phase(name)`), so a bench can say "initialize: 3 blocks, the longest 180 ms".
 * `loopProfiler()`: the same thread's V8 CPU profile (node:inspector), read afterwards for the runs of busy
 * samples longer than `thresholdMs`: each such block with its phase and the functions that held the CPU in it
 * (self time, and the innermost frame of our own code: src/ or algorithms/). Profile timestamps and
 * `process.hrtime` share the monotonic clock, so blocks and phases line up.
 */
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

export interface Block {
  /** ms since the phases' start. */
  atMs: number;
  /** The window (µs, monotonic clock): the tick before the late one, and the late one. */
  startUs: number;
  endUs: number;
  ms: number;
  phase: string;
  /**
   * CPU time the loop's thread used in the window (ms, 10 ms resolution; Linux). A late tick whose thread used
   * much less than its lateness waited for a CPU (a crowded machine); one that used more than 50 ms is our code.
   */
  cpuMs?: number;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** The phases a bench announces, by time (µs on the monotonic clock). */
export class Phases {
  private readonly marks: { us: number; name: string; cpuMs: number | undefined }[] = [];
  readonly t0 = nowUs();
  set(name: string): void {
    this.marks.push({ us: nowUs(), name, cpuMs: loopThreadCpuMs() });
  }
  /** Each phase's wall time and the CPU time of the loop's thread in it (ms), up to now. */
  summary(): { phase: string; wallMs: number; loopCpuMs: number | undefined }[] {
    const end = { us: nowUs(), cpuMs: loopThreadCpuMs() };
    return this.marks.map((m, i) => {
      const next = this.marks[i + 1] ?? end;
      return {
        phase: m.name,
        wallMs: Math.round((next.us - m.us) / 1000),
        loopCpuMs: m.cpuMs !== undefined && next.cpuMs !== undefined ? next.cpuMs - m.cpuMs : undefined,
      };
    });
  }
  at(us: number): string {
    let name = "start";
    for (const m of this.marks) if (m.us <= us) name = m.name;
    return name;
  }
}

/**
 * CPU time (ms) the event loop's thread has used, from /proc (Linux; 10 ms resolution), or undefined elsewhere.
 * Unlike process.cpuUsage it leaves out the worker threads (the database, the embedding pool, the analytics).
 */
export function loopThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 (utime, stime) in clock ticks; f[0] is field 3.
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

export function blockSampler(phases: Phases, thresholdMs = 50, everyMs = 10) {
  const blocks: Block[] = [];
  let last = nowUs();
  let lastCpu = loopThreadCpuMs();
  const timer = setInterval(() => {
    const now = nowUs();
    const cpu = loopThreadCpuMs();
    const late = (now - last) / 1000 - everyMs;
    if (late > thresholdMs)
      blocks.push({
        atMs: (last - phases.t0) / 1000,
        startUs: last,
        endUs: now,
        ms: late,
        phase: phases.at(last),
        ...(cpu !== undefined && lastCpu !== undefined ? { cpuMs: cpu - lastCpu } : {}),
      });
    last = now;
    lastCpu = cpu;
  }, everyMs);
  return {
    stop(): Block[] {
      clearInterval(timer);
      return blocks;
    },
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfiledBlock extends Block {
  /**
   * ms of the window in which the thread ran JavaScript or the GC (profile samples other than idle). A late
   * tick with little of it was the thread waiting for a CPU (a crowded machine), not our code running.
   */
  busyMs: number;
  /** Functions by self time in the block (ms), the top ones. */
  self: { fn: string; ms: number }[];
  /** Innermost frames of our own code (src/, algorithms/) by time in the block (ms). */
  ours: { fn: string; ms: number }[];
}

const IDLE = new Set(["(idle)", "(root)"]);

function frameName(n: ProfileNode): string {
  const f = n.callFrame;
  const file = f.url.replace(/^.*\/(src|algorithms|node_modules)\//, "$1/");
  return `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
}

/**
 * What ran in each late tick of a blockSampler (its window, from the tick before to the late one), read from the
 * thread's CPU profile: the top frames by self time and the innermost frames of our own code.
 */
export function profiledBlocks(profile: Profile, blocks: readonly Block[], top = 5): ProfiledBlock[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ownFrame = (id: number): string => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      if (/\/(src|algorithms)\//.test(n.callFrame.url) && !n.callFrame.url.includes("node_modules"))
        return frameName(n);
    }
    return "(no own frame)";
  };
  // Sample times, once.
  const times = new Float64Array(profile.samples.length);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    times[i] = t;
  }
  const best = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, ms]) => ({ fn, ms: Math.round(ms * 10) / 10 }));
  return blocks.map((b) => {
    const self = new Map<string, number>();
    const ours = new Map<string, number>();
    let busy = 0;
    for (let i = 1; i < times.length; i++) {
      if (times[i]! <= b.startUs || times[i - 1]! >= b.endUs) continue;
      const n = byId.get(profile.samples[i]!)!;
      if (IDLE.has(n.callFrame.functionName) && n.callFrame.url === "") continue;
      const ms = (times[i]! - times[i - 1]!) / 1000;
      busy += ms;
      const s = frameName(n);
      self.set(s, (self.get(s) ?? 0) + ms);
      const o = ownFrame(n.id);
      ours.set(o, (ours.get(o) ?? 0) + ms);
    }
    return { ...b, busyMs: Math.round(busy * 10) / 10, self: best(self), ours: best(ours) };
  });
}

/** Starts this thread's CPU profiler; `stop()` returns the profile. */
export async function loopProfiler(intervalUs = 1000) {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: intervalUs });
  await session.post("Profiler.start");
  return {
    async stop(): Promise<Profile> {
      const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
      session.disconnect();
      return profile;
    },
  };
}
