/**
 * The server's life: requests in flight, listening, and the graceful close (stop accepting, answer late
 * requests with 503, let in-flight ones finish within `shutdownTimeoutMs`, then drop the rest).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Readiness } from "./readiness.ts";

export interface ListeningAddress {
  port: number;
  host: string;
  url: string;
}

export interface Lifecycle {
  readonly active: number;
  readonly closing: boolean;
  enter(): void;
  leave(): void;
  listen(port?: number, host?: string): Promise<ListeningAddress>;
  close(): Promise<void>;
  forceClose(): void;
}

export const LISTEN_DEFAULTS = { port: 8787, host: "127.0.0.1" } as const;

export function createLifecycle(
  server: Server,
  o: { shutdownTimeoutMs: number; log(line: string): void; readiness: Readiness; warmUp: boolean },
): Lifecycle {
  let active = 0;
  let closing = false;
  let closePromise: Promise<void> | undefined;
  const idleWaiters: (() => void)[] = [];

  function waitIdle(ms: number): Promise<void> {
    if (active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        o.log(`toolgraph server: ${active} request(s) still running after ${ms} ms; dropping their connections`);
        resolve();
      }, ms);
      timer.unref();
      idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  return {
    get active() {
      return active;
    },
    get closing() {
      return closing;
    },
    enter() {
      active++;
    },
    leave() {
      active--;
      if (active === 0) for (const w of idleWaiters.splice(0)) w();
    },
    listen(port = LISTEN_DEFAULTS.port, host = LISTEN_DEFAULTS.host) {
      return new Promise<ListeningAddress>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        server.once("error", onError);
        server.listen(port, host, () => {
          server.off("error", onError);
          const a = server.address() as AddressInfo;
          const h = a.family === "IPv6" ? `[${a.address}]` : a.address;
          if (o.warmUp) void o.readiness.start();
          resolve({ port: a.port, host: a.address, url: `http://${h}:${a.port}` });
        });
      });
    },
    close() {
      closePromise ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          server.close(() => resolve());
        });
        server.closeIdleConnections();
        await waitIdle(o.shutdownTimeoutMs);
        server.closeAllConnections();
        await stopped;
      })();
      return closePromise;
    },
    forceClose() {
      closing = true;
      server.closeAllConnections();
    },
  };
}
