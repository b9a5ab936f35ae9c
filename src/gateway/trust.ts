/**
 * What the gateway lets through from its upstream servers: a policy (allow / deny by server, tool glob and
 * safety tag) and pins (the first-seen hash of each tool's description, schemas and annotations; a tool whose
 * hash changes is quarantined until approved). Both apply where the catalog is fed (a denied or quarantined
 * tool is left out of the catalog, so no search, plan, next step or exposed list can name it) and where calls
 * are forwarded (call_tool refuses it with the reason). Reasons and defaults: docs/decisions/gateway-trust.md.
 *
 * Policy semantics: a tool is denied when a `deny` rule matches it, or when `allow` rules exist and none
 * matches it. A rule matches when every field it gives matches: `server` (exact), `tool` (a glob over the
 * catalog id `<server>.<tool>`: `*` any run of characters, `?` one), `tag` (one of the tool's safety tags).
 *
 * Pins: trust on first use. The pin file (JSON) keeps per tool id its hash, when it was first seen and the
 * description as first seen (the original, for audit), and for a quarantined tool the pending hash and
 * description. `approve` accepts the pending version; a server with `autoApprove` accepts changes itself (each
 * logged).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { slicer } from "../view/background.ts";

export const policyRuleSchema = z
  .object({
    server: z.string().min(1).optional(),
    tool: z.string().min(1).max(256).optional(),
    tag: z.string().min(1).max(64).optional(),
  })
  .strict()
  .refine(
    (r) => r.server !== undefined || r.tool !== undefined || r.tag !== undefined,
    "give at least one of server, tool, tag",
  );

export const policySchema = z
  .object({
    allow: z.array(policyRuleSchema).max(1000).optional(),
    deny: z.array(policyRuleSchema).max(1000).optional(),
  })
  .strict();

export type PolicyRule = z.output<typeof policyRuleSchema>;
export type GatewayPolicy = z.output<typeof policySchema>;

function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "s");
}

export interface ToolFacts {
  id: string;
  server: string;
  safetyTags: readonly string[];
}

function ruleText(r: PolicyRule): string {
  return Object.entries(r)
    .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
    .join(", ");
}

/** A compiled policy: `denies(tool)` is the reason a tool is denied, or undefined when it is allowed. */
export function compilePolicy(policy: GatewayPolicy | undefined): {
  denies(tool: ToolFacts): string | undefined;
  empty: boolean;
} {
  const compile = (rules: PolicyRule[] | undefined) =>
    (rules ?? []).map((r) => ({ r, glob: r.tool === undefined ? undefined : globRegExp(r.tool) }));
  const allow = compile(policy?.allow);
  const deny = compile(policy?.deny);
  const matches = (c: { r: PolicyRule; glob: RegExp | undefined }, t: ToolFacts) =>
    (c.r.server === undefined || c.r.server === t.server) &&
    (c.glob === undefined || c.glob.test(t.id)) &&
    (c.r.tag === undefined || t.safetyTags.some((x) => x.toLowerCase() === c.r.tag!.toLowerCase()));
  return {
    empty: allow.length === 0 && deny.length === 0,
    denies(t) {
      const d = deny.find((c) => matches(c, t));
      if (d) return `denied by the gateway policy (deny rule: ${ruleText(d.r)})`;
      if (allow.length > 0 && !allow.some((c) => matches(c, t)))
        return "denied by the gateway policy (no allow rule matches it)";
      return undefined;
    },
  };
}

/** The hash a tool is pinned by: its description, title, schemas and annotations as listed (canonical JSON). */
export function toolHash(
  tool: Pick<Tool, "description" | "title" | "inputSchema" | "outputSchema" | "annotations">,
): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  const text = JSON.stringify(
    canonical({
      d: tool.description ?? "",
      t: tool.title ?? null,
      i: tool.inputSchema ?? null,
      o: tool.outputSchema ?? null,
      a: tool.annotations ?? null,
    }),
  );
  return createHash("sha256").update(text).digest("hex");
}

export interface Pin {
  hash: string;
  firstSeen: string;
  /** The description as first seen (the original, for audit). */
  description: string;
  /** A changed version waiting for approval. */
  pending?: { hash: string; seen: string; description: string } | undefined;
}

export type PinVerdict = { state: "pinned" | "new" | "approved-change" } | { state: "quarantined"; reason: string };

function fileVersion(file: string): string {
  const st = statSync(file);
  return `${st.mtimeMs}:${st.ino}:${st.size}`;
}

/**
 * The pins of one gateway, kept in a JSON file (or in memory without one). Re-read when the file changed on
 * disk (an `approve` from another process), written whole through a rename (never half-written).
 */
export class PinStore {
  private pins = new Map<string, Pin>();
  /** The file's version as last read or written: mtime, inode and size (each save renames a new file into
   *  place, so the inode changes even when two saves land within one tick of the file system's clock). */
  private version = "";
  constructor(private readonly file: string | undefined) {
    this.reload();
  }

  /** Reads the file again if it changed since the last read; true when it did. */
  reload(): boolean {
    if (!this.file || !existsSync(this.file)) return false;
    const v = fileVersion(this.file);
    if (v === this.version) return false;
    const parsed = JSON.parse(readFileSync(this.file, "utf8")) as { pins?: Record<string, Pin> };
    this.pins = new Map(Object.entries(parsed.pins ?? {}));
    this.version = v;
    return true;
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(
      tmp,
      `${JSON.stringify({ version: 1, pins: Object.fromEntries([...this.pins].sort(([a], [b]) => (a < b ? -1 : 1))) }, null, 1)}\n`,
    );
    renameSync(tmp, this.file);
    this.version = fileVersion(this.file);
  }

  /** Saves in turn (a save waits for the one before: the file ends with the last state). */
  private saving: Promise<void> = Promise.resolve();

  /**
   * `save`, the text built a pin at a time in slices and written without blocking: the same bytes (each
   * entry is JSON.stringify's indent-1 text moved two levels in, which is how the whole object prints).
   */
  private saveInSlices(): Promise<void> {
    const run = this.saving.then(async () => {
      if (!this.file) return;
      const entries = [...this.pins].sort(([a], [b]) => (a < b ? -1 : 1));
      const slice = slicer();
      const parts: string[] = [];
      for (const [id, pin] of entries) {
        parts.push(`  ${JSON.stringify(id)}: ${JSON.stringify(pin, null, 1).replace(/\n/g, "\n  ")}`);
        await slice();
      }
      const pins = parts.length === 0 ? "{}" : `{\n${parts.join(",\n")}\n }`;
      const tmp = `${this.file}.${process.pid}.slices.tmp`;
      await writeFile(tmp, `{\n "version": 1,\n "pins": ${pins}\n}\n`);
      await rename(tmp, this.file);
      this.version = fileVersion(this.file);
    });
    this.saving = run.catch(() => undefined);
    return run;
  }

  get(id: string): Pin | undefined {
    return this.pins.get(id);
  }

  quarantined(): { tool: string; since: string; firstSeen: string }[] {
    return [...this.pins]
      .filter(([, p]) => p.pending)
      .map(([tool, p]) => ({ tool, since: p.pending!.seen, firstSeen: p.firstSeen }));
  }

  /**
   * Checks the listed versions of tools against their pins (one write for the whole list): a new tool is
   * pinned, an unchanged one passes, a changed one is quarantined — or, with `autoApprove`, re-pinned.
   */
  check(
    tools: { id: string; tool: Tool; hash?: string | undefined }[],
    options: { autoApprove: boolean; now: string },
  ): Map<string, PinVerdict> {
    this.reload();
    const out = new Map<string, PinVerdict>();
    let changed = false;
    for (const { id, tool, hash } of tools) changed = this.verdict(out, id, tool, hash, options) || changed;
    if (changed) this.save();
    return out;
  }

  /**
   * `check` for a whole upstream list, in slices between event-loop turns, the file written asynchronously (its
   * text built in slices too): thousands of tools are 35–65 ms of hashing and serialising, more as pins of
   * renamed tools accumulate.
   */
  async checkInSlices(
    tools: { id: string; tool: Tool; hash?: string | undefined }[],
    options: { autoApprove: boolean; now: string },
  ): Promise<Map<string, PinVerdict>> {
    this.reload();
    const out = new Map<string, PinVerdict>();
    let changed = false;
    const slice = slicer();
    for (const { id, tool, hash } of tools) {
      changed = this.verdict(out, id, tool, hash, options) || changed;
      await slice();
    }
    if (changed) await this.saveInSlices();
    return out;
  }

  /** One tool's verdict into `out`; true when its pin changed. */
  private verdict(
    out: Map<string, PinVerdict>,
    id: string,
    tool: Tool,
    given: string | undefined,
    options: { autoApprove: boolean; now: string },
  ): boolean {
    const hash = given ?? toolHash(tool);
    const description = tool.description ?? "";
    const pin = this.pins.get(id);
    if (!pin) {
      this.pins.set(id, { hash, firstSeen: options.now, description });
      out.set(id, { state: "new" });
      return true;
    }
    if (pin.hash === hash) {
      out.set(id, { state: "pinned" });
      if (!pin.pending) return false;
      pin.pending = undefined; // changed back to the approved version
      return true;
    }
    if (options.autoApprove) {
      this.pins.set(id, { hash, firstSeen: options.now, description });
      out.set(id, { state: "approved-change" });
      return true;
    }
    out.set(id, {
      state: "quarantined",
      reason: `quarantined: its description, schema or annotations changed since it was first seen (${pin.firstSeen}); approve the new version with \`toolgraph gateway approve ${id}\``,
    });
    if (pin.pending?.hash === hash) return false;
    pin.pending = { hash, seen: options.now, description };
    return true;
  }

  /** Accepts the pending version of each tool (by id or glob); returns the ids approved. */
  approve(patterns: readonly string[], now: string): string[] {
    this.reload();
    const globs = patterns.map(globRegExp);
    const done: string[] = [];
    for (const [id, pin] of this.pins) {
      if (!pin.pending || !globs.some((g) => g.test(id))) continue;
      this.pins.set(id, { hash: pin.pending.hash, firstSeen: now, description: pin.pending.description });
      done.push(id);
    }
    if (done.length > 0) this.save();
    return done.sort();
  }
}
