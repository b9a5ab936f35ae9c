/**
 * The gateway's pins, kept in a JSON file: trust on first use of each upstream tool's definition. The hash and
 * the verdict (new, pinned, quarantined, approved-change) are algorithms/safety/tool-pin.ts's; the policy
 * (allow / deny by server, tool glob, safety tag) is algorithms/safety/tool-policy.ts's, its schema
 * src/contract/gateway-policy.ts's. Both apply where the catalog is fed (catalog-admit.ts) and where calls are
 * forwarded (call_tool refuses a blocked tool with the reason). Reasons and defaults: docs/decisions/gateway-trust.md.
 *
 * The file keeps per tool id its hash, when it was first seen and the description as first seen (the original,
 * for audit), and for a quarantined tool the pending hash and description. `approve` accepts the pending
 * version; a server with `autoApprove` accepts changes itself (each logged). The file is re-read when it
 * changed on disk (an `approve` from another process) and written whole through a rename (never half-written).
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Pin, type PinVerdict, pinVerdict, toolHash } from "../../algorithms/safety/tool-pin.ts";
import { globRegExp } from "../../algorithms/strings/glob.ts";
import { slicer } from "../view/background.ts";

type Listed = { id: string; tool: Tool; hash?: string | undefined };
type CheckOptions = { autoApprove: boolean; now: string };

function fileVersion(file: string): string {
  const st = statSync(file);
  return `${st.mtimeMs}:${st.ino}:${st.size}`;
}

const byId = ([a]: [string, Pin], [b]: [string, Pin]) => (a < b ? -1 : 1);

export class PinStore {
  private pins = new Map<string, Pin>();
  /** The file's version as last read or written: mtime, inode and size (each save renames a new file into
   *  place, so the inode changes even when two saves land within one tick of the file system's clock). */
  private version = "";
  /** Saves in turn (a save waits for the one before: the file ends with the last state). */
  private saving: Promise<void> = Promise.resolve();

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
      `${JSON.stringify({ version: 1, pins: Object.fromEntries([...this.pins].sort(byId)) }, null, 1)}\n`,
    );
    renameSync(tmp, this.file);
    this.version = fileVersion(this.file);
  }

  /**
   * `save`, the text built a pin at a time in slices and written without blocking: the same bytes (each
   * entry is JSON.stringify's indent-1 text moved two levels in, which is how the whole object prints).
   */
  private saveInSlices(): Promise<void> {
    const run = this.saving.then(async () => {
      if (!this.file) return;
      const slice = slicer();
      const parts: string[] = [];
      for (const [id, pin] of [...this.pins].sort(byId)) {
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

  /** The listed versions of tools against their pins (one write for the whole list). */
  check(tools: Listed[], options: CheckOptions): Map<string, PinVerdict> {
    this.reload();
    const out = new Map<string, PinVerdict>();
    let changed = false;
    for (const listed of tools) changed = this.verdict(out, listed, options) || changed;
    if (changed) this.save();
    return out;
  }

  /**
   * `check` for a whole upstream list, in slices between event-loop turns, the file written asynchronously (its
   * text built in slices too): thousands of tools are 35–65 ms of hashing and serialising.
   */
  async checkInSlices(tools: Listed[], options: CheckOptions): Promise<Map<string, PinVerdict>> {
    this.reload();
    const out = new Map<string, PinVerdict>();
    let changed = false;
    const slice = slicer();
    for (const listed of tools) {
      changed = this.verdict(out, listed, options) || changed;
      await slice();
    }
    if (changed) await this.saveInSlices();
    return out;
  }

  /** One tool's verdict into `out`; true when its pin changed. */
  private verdict(out: Map<string, PinVerdict>, { id, tool, hash }: Listed, options: CheckOptions): boolean {
    const listed = { id, hash: hash ?? toolHash(tool), description: tool.description ?? "" };
    const { verdict, next } = pinVerdict(this.pins.get(id), listed, options);
    out.set(id, verdict);
    if (next) this.pins.set(id, next);
    return next !== undefined;
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
