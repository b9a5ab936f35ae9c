/**
 * The api the gateway serves (gateway-api.ts): an operation waits while the gateway starts (its first catalog
 * sync: the catalog has nothing to answer from yet), `ping` and `stats` do not, and an operation runs at once
 * when the gateway is not starting (a later sync is staged: search-during-sync.test.ts). A real embedded
 * database with a small catalog.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHost, gatewayApi } from "../../src/gateway/gateway-api.ts";
import type { GatewayStatus } from "../../src/gateway/status-tool.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

let tg: Toolgraph;

beforeAll(async () => {
  tg = await openToolgraph({ home: "memory://", database: "", project: "served", embeddings: "hash:64" });
  await tg.importCatalog({
    tools: [
      { id: "files.read", description: "Read a file from disk" },
      { id: "files.write", description: "Write a file to disk" },
    ],
  });
}, 60_000);

afterAll(async () => {
  await tg?.close();
});

function host(settling: () => Promise<void> | undefined): ApiHost {
  const status: GatewayStatus = {
    servers: [],
    down: [],
    sessions: 0,
    learning: true,
    recorded: {
      executions: 0,
      steps: 0,
      failedWrites: 0,
      backlog: 0,
      spooled: 0,
      retrying: false,
      rejected: 0,
      dropped: 0,
      skippedSteps: 0,
    },
    quarantined: [],
    denied: 0,
  };
  return { status: () => status, explainEmpty: (err) => err, settling };
}

describe("gatewayApi while the gateway starts", () => {
  it("an operation waits for the start to end; ping and stats answer meanwhile", async () => {
    let release!: () => void;
    const start = new Promise<void>((r) => (release = r));
    let inProgress = true;
    const served = gatewayApi(
      tg,
      host(() => (inProgress ? start : undefined)),
    );
    const order: string[] = [];
    const search = served.search({ intent: "read a file", limit: 1 }).then((r) => {
      order.push("search");
      return r;
    });
    expect(await served.ping()).toEqual({ backend: "pglite" });
    order.push("ping");
    const stats = (await served.stats()) as unknown as { tools: number; gateway: unknown };
    order.push("stats");
    expect(stats.tools).toBe(2);
    expect(order).toEqual(["ping", "stats"]);
    order.push("start ends");
    inProgress = false;
    release();
    const r = (await search) as { results: { tool: string }[] };
    expect(order).toEqual(["ping", "stats", "start ends", "search"]);
    expect(r.results[0]!.tool).toBe("files.read");
  });

  it("an operation runs at once when the gateway is not starting", async () => {
    const served = gatewayApi(
      tg,
      host(() => undefined),
    );
    const r = (await served.search({ intent: "write a file", limit: 1 })) as { results: { tool: string }[] };
    expect(r.results[0]!.tool).toBe("files.write");
  });
});
