/**
 * Counts the JSON-RPC requests a server transport has received and not yet answered, so that a stdio
 * server whose stdin closes can let them finish (their answers still go out) before it exits. Wrap the
 * transport after `server.connect(transport)` (the protocol installs its handlers there).
 */
import type { Transport } from "@modelcontextprotocol/server";

type Id = string | number;

export interface InFlight {
  /** Requests received and not yet answered. */
  readonly count: number;
  /** Resolves once every request received so far has been answered (or after `timeoutMs`). */
  drain(timeoutMs?: number): Promise<void>;
}

export function trackInFlight(transport: Transport): InFlight {
  const open = new Set<Id>();
  const waiters: (() => void)[] = [];
  const settle = () => {
    if (open.size === 0) for (const w of waiters.splice(0)) w();
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { id?: Id; method?: unknown };
    if (m.id !== undefined && typeof m.method === "string") open.add(m.id);
    onmessage?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      return await send(message, options);
    } finally {
      const m = message as { id?: Id; method?: unknown };
      if (m.id !== undefined && m.method === undefined && open.delete(m.id)) settle();
    }
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    open.clear();
    settle();
    onclose?.();
  };
  return {
    get count() {
      return open.size;
    },
    drain(timeoutMs = 30_000) {
      if (open.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        timer.unref();
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
