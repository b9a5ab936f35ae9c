/**
 * The demo project: a small, realistic developer-platform catalog (41 tools in 9 namespaces,
 * 10 capabilities with trigger patterns, in capabilities.ts) used by `toolgraph demo` and by the front-door tests.
 */
import type { CatalogInput } from "../formats/schemas.ts";
import { DEMO_CAPABILITIES } from "./capabilities.ts";

export { DEMO_CAPABILITIES, type DemoCapability } from "./capabilities.ts";

type T = {
  id: string;
  d: string;
  params?: Record<string, string>;
  tags?: string[];
  ms?: number;
  cost?: number;
  safety?: string[];
};

// biome-ignore format: one tool per line reads as a table
const TOOLS: T[] = [
  { id: "fs.read_file", d: "Read the contents of a file from the local workspace", params: { path: "path of the file to read" }, tags: ["files"], ms: 5 },
  { id: "fs.write_file", d: "Write text content to a file in the local workspace, creating it if needed", params: { path: "file path", content: "text to write" }, tags: ["files"], ms: 8, safety: ["destructive"] },
  { id: "fs.list_directory", d: "List the files and folders inside a directory", params: { path: "directory path" }, tags: ["files"], ms: 4 },
  { id: "fs.search_files", d: "Search file contents in the workspace with a regular expression", params: { pattern: "regex to search", path: "folder" }, tags: ["files", "search"], ms: 40 },
  { id: "fs.delete_file", d: "Delete a file from the workspace permanently", params: { path: "file path" }, tags: ["files"], ms: 3, safety: ["destructive"] },
  { id: "git.status", d: "Show the working tree status: modified, staged and untracked files", tags: ["git"], ms: 30 },
  { id: "git.diff", d: "Show the changes between the working tree and the last commit", params: { path: "optional path" }, tags: ["git"], ms: 35 },
  { id: "git.commit", d: "Record staged changes to the repository with a commit message", params: { message: "commit message" }, tags: ["git"], ms: 60 },
  { id: "git.create_branch", d: "Create a new git branch from the current HEAD", params: { name: "branch name" }, tags: ["git"], ms: 25 },
  { id: "git.push", d: "Push local commits of a branch to the remote repository", params: { branch: "branch to push" }, tags: ["git"], ms: 900, safety: ["network"] },
  { id: "github.create_pull_request", d: "Open a pull request on GitHub from a branch into the default branch", params: { title: "PR title", body: "PR description", head: "source branch" }, tags: ["github", "review"], ms: 1200, safety: ["network"] },
  { id: "github.list_issues", d: "List open issues of a GitHub repository, optionally filtered by label", params: { repo: "owner/name", label: "label filter" }, tags: ["github"], ms: 700, safety: ["network"] },
  { id: "github.get_issue", d: "Get the title, body and comments of one GitHub issue", params: { repo: "owner/name", number: "issue number" }, tags: ["github"], ms: 600, safety: ["network"] },
  { id: "github.comment_issue", d: "Add a comment to a GitHub issue or pull request", params: { number: "issue number", body: "comment text" }, tags: ["github"], ms: 650, safety: ["network"] },
  { id: "github.merge_pull_request", d: "Merge an approved pull request on GitHub", params: { number: "pull request number" }, tags: ["github"], ms: 1500, safety: ["network", "destructive"] },
  { id: "ci.run_tests", d: "Run the project's unit test suite and report failures", params: { filter: "test name filter" }, tags: ["ci", "testing"], ms: 45000, cost: 0.02 },
  { id: "ci.run_linter", d: "Run the linter over the code base and list style problems", tags: ["ci", "quality"], ms: 8000, cost: 0.005 },
  { id: "ci.build", d: "Build the project and its artefacts", tags: ["ci"], ms: 60000, cost: 0.03 },
  { id: "ci.deploy", d: "Deploy a built version to an environment such as staging or production", params: { environment: "staging or production", version: "version to deploy" }, tags: ["ci", "release"], ms: 120000, cost: 0.1, safety: ["network", "destructive"] },
  { id: "ci.rollback", d: "Roll back an environment to its previous deployed version", params: { environment: "environment name" }, tags: ["ci", "release"], ms: 90000, cost: 0.08, safety: ["network", "destructive"] },
  { id: "db.query", d: "Run a read-only SQL query against the application database", params: { sql: "SELECT statement" }, tags: ["database"], ms: 120 },
  { id: "db.describe_table", d: "Describe the columns, types and indexes of a database table", params: { table: "table name" }, tags: ["database"], ms: 50 },
  { id: "db.migrate", d: "Apply pending schema migrations to the database", tags: ["database"], ms: 3000, safety: ["destructive"] },
  { id: "db.backup", d: "Create a backup snapshot of the database", tags: ["database"], ms: 20000, cost: 0.01 },
  { id: "http.get", d: "Fetch a URL over HTTP and return the response body", params: { url: "address to fetch" }, tags: ["web"], ms: 400, safety: ["network"] },
  { id: "http.post_json", d: "Send a JSON payload to a URL with an HTTP POST request", params: { url: "endpoint", body: "JSON body" }, tags: ["web"], ms: 450, safety: ["network"] },
  { id: "web.search", d: "Search the web for pages matching a query", params: { query: "search terms" }, tags: ["web", "search"], ms: 800, cost: 0.002, safety: ["network"] },
  { id: "web.summarize_page", d: "Summarise the main content of a web page", params: { url: "page address" }, tags: ["web"], ms: 2500, cost: 0.004, safety: ["network"] },
  { id: "slack.post_message", d: "Post a message to a Slack channel", params: { channel: "channel name", text: "message text" }, tags: ["chat", "notify"], ms: 300, safety: ["network"] },
  { id: "slack.read_channel", d: "Read the latest messages of a Slack channel", params: { channel: "channel name" }, tags: ["chat"], ms: 350, safety: ["network"] },
  { id: "email.send", d: "Send an email to one or more recipients", params: { to: "recipient addresses", subject: "subject line", body: "message body" }, tags: ["email", "notify"], ms: 500, safety: ["network"] },
  { id: "email.search_inbox", d: "Search the email inbox for messages matching a query", params: { query: "search terms" }, tags: ["email", "search"], ms: 600 },
  { id: "calendar.find_free_slot", d: "Find a free time slot in the calendars of several people", params: { attendees: "people", duration: "minutes" }, tags: ["calendar"], ms: 400 },
  { id: "calendar.create_event", d: "Create a calendar event and invite attendees", params: { title: "event title", start: "start time", attendees: "people" }, tags: ["calendar"], ms: 450, safety: ["network"] },
  { id: "docs.search", d: "Search the internal documentation and wiki pages", params: { query: "search terms" }, tags: ["docs", "search"], ms: 300 },
  { id: "docs.create_page", d: "Create a new page in the internal documentation wiki", params: { title: "page title", content: "markdown content" }, tags: ["docs"], ms: 500 },
  { id: "monitor.get_alerts", d: "List the currently firing monitoring alerts", tags: ["monitoring"], ms: 250 },
  { id: "monitor.query_metrics", d: "Query time series metrics such as latency or error rate", params: { metric: "metric name", range: "time range" }, tags: ["monitoring"], ms: 350 },
  { id: "monitor.read_logs", d: "Read application logs filtered by service and severity", params: { service: "service name", level: "severity" }, tags: ["monitoring", "logs"], ms: 500 },
  { id: "ticket.create", d: "Create a ticket in the issue tracker with a title and description", params: { title: "ticket title", description: "details" }, tags: ["tickets"], ms: 400, safety: ["network"] },
  { id: "ticket.update_status", d: "Change the status of a ticket, e.g. to in progress or done", params: { id: "ticket id", status: "new status" }, tags: ["tickets"], ms: 300, safety: ["network"] },
];

function inputSchema(params: Record<string, string> | undefined): Record<string, unknown> | undefined {
  if (!params) return undefined;
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, { type: "string", description: v }])),
    required: Object.keys(params).slice(0, 1),
  };
}

export function demoCatalog(): CatalogInput {
  return {
    tools: TOOLS.map((t) => ({
      id: t.id,
      name: t.id.split(".")[1]!,
      description: t.d,
      inputSchema: inputSchema(t.params),
      tags: t.tags ?? [],
      examples: [],
      antiPatterns: [],
      safetyTags: t.safety ?? [],
      server: t.id.split(".")[0]!,
      ...(t.ms !== undefined ? { avgLatencyMs: t.ms } : {}),
      ...(t.cost !== undefined ? { costEstimate: t.cost } : {}),
    })),
    capabilities: DEMO_CAPABILITIES.map((c) => ({
      id: c.id,
      name: c.name,
      description: c.description,
      tools: [...new Set(c.workflow.map((s) => s.tool))],
      patterns: c.patterns ?? [],
      keywords: c.keywords ?? [],
      priority: c.priority ?? 0,
      dependsOn: c.dependsOn ?? [],
    })),
  };
}
