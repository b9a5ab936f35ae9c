/**
 * The stale lock file the race bench and tests write (bench/lib/racers.ts's deadOwner, written by hand so the
 * bench needs no internal import) reads as the data-directory lock's own format: a dead process on this boot.
 */
import { describe, expect, it } from "vitest";
import { deadOwner } from "../../bench/lib/racers.ts";
import { bootId, formatOwner, ownerAlive, parseOwner } from "../../src/store/data-dir-lock.ts";

describe("deadOwner", () => {
  it("is the lock's format for an exited process of this boot", async () => {
    const text = await deadOwner();
    const owner = parseOwner(text);
    expect(owner).toBeDefined();
    expect(owner!.pid).toBeGreaterThan(0);
    expect(owner!.bootId).toBe(bootId());
    expect(owner!.startTime).toBe("1");
    expect(formatOwner(owner!)).toBe(text);
    expect(ownerAlive(owner!)).toBe(false);
  });
});
