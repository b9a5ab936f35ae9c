// The library's open budget, measured as a user meets it: a plain Node script (no tsx, no build step of its
// own) that opens an in-memory project, imports 4 tools and answers one search. Run after `npm run build`:
//   node bench/library-open.mjs            (prints one JSON line: phases in ms, peak RSS in MB)
// Time the whole process from outside, 5 runs, and quote the median. A run after the first finds the model's
// answers for these tools and this query in the user's cache directory (TOOLGRAPH_CACHE_DIR, else
// $XDG_CACHE_HOME/toolgraph: toolgraph-cache/embed-calls/) and loads no model; remove that folder before each
// run to time a first open (docs/decisions/everyday-budget.md).
import { openToolgraph } from "toolgraph";

const t0 = performance.now();
const tg = await openToolgraph({ home: "memory://", project: "open-budget" });
const opened = performance.now();
await tg.importCatalog({
  tools: [
    { id: "git.commit", description: "Record staged changes with a message" },
    { id: "git.push", description: "Push local commits to the remote repository" },
    { id: "github.create_pull_request", description: "Open a pull request from a branch" },
    { id: "slack.post_message", description: "Post a message to a Slack channel" },
  ],
});
const imported = performance.now();
const found = await tg.search({ intent: "open a pull request", limit: 2 });
const searched = performance.now();
await tg.close();
const ms = (a, b) => Math.round(b - a);
console.log(
  JSON.stringify({
    openMs: ms(t0, opened),
    importMs: ms(opened, imported),
    searchMs: ms(imported, searched),
    top: found.results[0]?.tool,
    rssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
