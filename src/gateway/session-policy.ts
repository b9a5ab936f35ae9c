/**
 * A downstream identity's policy (config `policies`, selected by its HTTP bearer token: config.ts `tokens`)
 * applied to one session on top of the gateway's `policy`. The gateway's policy keeps tools out of the shared
 * catalog; a session's policy cannot (other sessions share the catalog), so it applies to what the session
 * sees and calls:
 *   - search_tools, suggest_next_tool and plan_workflow get the denied tools as a mask (src/jobs/tool-mask.ts)
 *     that the scorers skip, however many they are, so an answer still has its `limit` of allowed items and a
 *     plan is built without them, not cut afterwards;
 *   - every answer of the gateway's own tools is then filtered: an array item naming a denied tool (a string
 *     id, or an object whose `tool`, `from` or `to` is one) is removed, so a denied tool never appears;
 *   - call_tool refuses a denied tool with the reason, and `expose` never lists one.
 * Reasons and the choice: docs/decisions/gateway-trust.md.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { compilePolicy } from "../../algorithms/safety/tool-policy.ts";
import type { GatewayPolicy } from "../contract/gateway-policy.ts";
import { ToolMask } from "../jobs/tool-mask.ts";
import { safetyTagsOf, splitToolId } from "./tool-map.ts";

/** The api methods whose requests take a mask of denied tools. */
const EXCLUDING = new Set(["search", "suggestNext", "plan"]);

export class SessionPolicy {
  readonly name: string;
  private readonly compiled: ReturnType<typeof compilePolicy>;
  private readonly toolOf: (id: string) => Tool | undefined;
  private readonly allTools: () => Iterable<{ id: string; tool: Tool }>;
  private readonly generation: () => number;
  private cache: {
    generation: number;
    denied: Map<string, string | undefined>;
    all?: string[];
    mask?: ToolMask;
  } = {
    generation: -1,
    denied: new Map(),
  };

  /**
   * `toolOf`: the upstream tool behind a catalog id (undefined when no server lists it); `allTools`: every
   * listed upstream tool; `generation`: a number that moves whenever the lists change (the cache key).
   */
  constructor(
    name: string,
    policy: GatewayPolicy,
    tools: {
      toolOf: (id: string) => Tool | undefined;
      allTools: () => Iterable<{ id: string; tool: Tool }>;
      generation: () => number;
    },
  ) {
    this.name = name;
    this.compiled = compilePolicy(policy);
    this.toolOf = tools.toolOf;
    this.allTools = tools.allTools;
    this.generation = tools.generation;
  }

  private fresh(): typeof this.cache {
    const g = this.generation();
    if (this.cache.generation !== g) this.cache = { generation: g, denied: new Map() };
    return this.cache;
  }

  /** Why this policy denies the tool (naming the policy), or undefined. A tool no server lists is judged by its id. */
  denies(id: string): string | undefined {
    const c = this.fresh();
    if (c.denied.has(id)) return c.denied.get(id);
    const server = splitToolId(id)?.server ?? "";
    const tool = this.toolOf(id);
    const why = this.compiled.denies({ id, server, safetyTags: tool ? safetyTagsOf(tool) : [] });
    const out =
      why === undefined
        ? undefined
        : why.replace("the gateway policy", `the policy ${JSON.stringify(this.name)} of this session's token`);
    c.denied.set(id, out);
    return out;
  }

  /** Every listed upstream tool this policy denies. */
  deniedIds(): string[] {
    const c = this.fresh();
    if (!c.all) {
      const all: string[] = [];
      for (const { id } of this.allTools()) if (this.denies(id) !== undefined) all.push(id);
      c.all = all;
    }
    return c.all;
  }

  /** The denied tools as a mask, keyed by this policy and the lists' generation (the result cache's key). */
  mask(): ToolMask {
    const c = this.fresh();
    c.mask ??= new ToolMask(`${JSON.stringify(this.name)}@${c.generation}`, this.deniedIds());
    return c.mask;
  }

  /** The request with the denied tools as its mask (when any are denied). */
  request(method: string, req: unknown): unknown {
    if (!EXCLUDING.has(method) || req === null || typeof req !== "object") return req;
    const mask = this.mask();
    return mask.size === 0 ? req : { ...req, deny: mask };
  }

  /** The answer without any array item that names a denied tool (see the header). The input is not changed. */
  filter<T>(answer: T): T {
    // Only ids of listed upstream tools are judged: other strings (reasons, explanations) pass.
    const named = (v: unknown): boolean =>
      typeof v === "string" && this.toolOf(v) !== undefined && this.denies(v) !== undefined;
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) {
        return v
          .filter((x) => {
            if (typeof x === "string") return !named(x);
            if (x !== null && typeof x === "object") {
              const o = x as Record<string, unknown>;
              return !named(o.tool) && !named(o.from) && !named(o.to);
            }
            return true;
          })
          .map(walk);
      }
      if (v !== null && typeof v === "object")
        return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    return walk(answer) as T;
  }
}

/** The api as a session with this policy calls it: requests get the exclusions, answers the filter. */
export function policyApi<T extends object>(api: T, policy: SessionPolicy): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== "function" || typeof prop !== "string") return v;
      return (req: unknown, ...rest: unknown[]) => {
        const r = v.apply(target, [policy.request(prop, req), ...rest]);
        return r instanceof Promise ? r.then((answer: unknown) => policy.filter(answer)) : r;
      };
    },
  });
}
