/**
 * A project's token lists kept from one search-index build to the next, so a build tokenizes only the texts
 * that changed (tokenizing every tool at every build was most of a catalog sync's garbage on the event loop:
 * docs/decisions/gateway-first-answer.md). Keyed by the text itself — the Map hashes it, exactly, with no
 * collision and no digest to compute; the catalog holds the same strings. Bounded: a build reads through
 * `reader()` and calls `sweep` when done, which drops every text no build since the previous sweep has read
 * (texts no longer in the catalog). The lists equal tokenize's (default options), so the index is the same.
 * Held by the Engine, one per project: never a module-level cache.
 */

import { tokenize } from "../../algorithms/search/tokenize.ts";

interface Entry {
  tokens: readonly string[];
  /** The last build that read this text. */
  build: number;
}

export class TokenLists {
  private readonly entries = new Map<string, Entry>();
  private builds = 0;
  /** Texts tokenized (missing from the lists) and found, since this object was made. */
  readonly counts = { tokenized: 0, reused: 0 };

  /** Texts kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** A build's tokenizer (tokenize with default options) and the build's number, for `sweep`. */
  reader(): { build: number; tokens: (text: string) => readonly string[] } {
    const build = ++this.builds;
    return {
      build,
      tokens: (text) => {
        const e = this.entries.get(text);
        if (e) {
          e.build = Math.max(e.build, build);
          this.counts.reused++;
          return e.tokens;
        }
        const tokens = tokenize(text);
        this.entries.set(text, { tokens, build });
        this.counts.tokenized++;
        return tokens;
      },
    };
  }

  /**
   * After build `build` is done: drops the texts that neither it nor a later build read. A build still
   * running that had read one of them finds it missing and tokenizes it again (the same tokens).
   */
  sweep(build: number): void {
    for (const [text, e] of this.entries) if (e.build < build) this.entries.delete(text);
  }
}
