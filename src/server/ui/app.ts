/// <reference lib="dom" />
/**
 * The console's browser script (bundled by console.ts with esbuild; runs in the page, never in Node).
 * Four views over the server's JSON: the tool graph (sigma.js over a graphology graph: colour = Louvain
 * community, size = PageRank, edge colour = type, width = quality), search, plan (DAG by layers with the
 * critical path), and the dashboard over the recommendation log.
 */
import { $, status } from "./app-common.ts";
import { loadDashboard } from "./app-dashboard.ts";
import { loadGraph } from "./app-graph.ts";
import { runPlan, runSearch } from "./app-search-plan.ts";

// ---- views ----
const views = ["graph", "search", "plan", "dashboard"] as const;
type View = (typeof views)[number];

function show(view: View): void {
  for (const v of views) $(`view-${v}`).hidden = v !== view;
  for (const b of document.querySelectorAll<HTMLButtonElement>(".tab"))
    b.classList.toggle("active", b.dataset.view === view);
  if (view === "dashboard") void loadDashboard();
  else if (view === "graph") void loadGraph();
  history.replaceState(null, "", `#${view}`);
}

// ---- wiring ----
for (const b of document.querySelectorAll<HTMLButtonElement>(".tab"))
  b.addEventListener("click", () => show(b.dataset.view as View));
$("search-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  runSearch($<HTMLInputElement>("search-input").value).catch((err) =>
    status(`search failed: ${(err as Error).message}`),
  );
});
$("plan-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  runPlan($<HTMLInputElement>("plan-input").value).catch((err) => status(`plan failed: ${(err as Error).message}`));
});
window.addEventListener("unhandledrejection", (ev) => status(`error: ${(ev.reason as Error)?.message ?? ev.reason}`));
const first = location.hash.slice(1) as View;
show(views.includes(first) ? first : "graph");
if (first !== "graph") void loadGraph().catch(() => {});
