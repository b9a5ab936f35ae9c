/**
 * Coalescing of an upstream's tools/list_changed notifications: a burst waits `debounceMs` and becomes one
 * re-list, at most one re-list runs at a time, and re-lists start at least `minIntervalMs` apart
 * (algorithms/timing/coalesce.ts; defaults and why: docs/decisions/gateway-churn.md).
 */
import { coalescedDelay } from "../../algorithms/timing/coalesce.ts";

export interface RelistOptions {
  debounceMs: number;
  minIntervalMs: number;
  /** False once the upstream is closed: nothing more is scheduled. */
  open: () => boolean;
  /** False while the upstream is not up: a due re-list is skipped. */
  ready: () => boolean;
  /** The re-list itself (its errors are its own to report). */
  run: () => Promise<void>;
}

export class Relister {
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private lastStartAt = Number.NEGATIVE_INFINITY;
  /** Re-lists run, and the notifications received. */
  relists = 0;
  listChanged = 0;

  constructor(private readonly o: RelistOptions) {}

  /** True while a re-list is pending or running. */
  get active(): boolean {
    return this.pending || this.running;
  }

  /** A tools/list_changed arrived. */
  notified(): void {
    this.listChanged++;
    this.pending = true;
    this.schedule();
  }

  /**
   * Schedules the pending re-list: `debounceMs` after the first notification of a burst, and no sooner than
   * `minIntervalMs` after the previous re-list started. While one runs, nothing more is scheduled: its end
   * schedules the next if notifications came meanwhile.
   */
  private schedule(): void {
    if (!this.pending || this.timer !== undefined || this.running || !this.o.open()) return;
    const delay = coalescedDelay(Date.now(), this.lastStartAt, this.o.debounceMs, this.o.minIntervalMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.fire();
    }, delay);
    this.timer.unref();
  }

  private async fire(): Promise<void> {
    if (!this.pending || !this.o.ready()) return;
    this.pending = false;
    this.running = true;
    this.lastStartAt = Date.now();
    this.relists++;
    try {
      await this.o.run();
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  /** The connection went down: the next one lists the tools anyway. */
  cancel(): void {
    this.pending = false;
    this.stop();
  }

  /** No re-list is scheduled from now on (the upstream closes). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
