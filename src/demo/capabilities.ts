/**
 * The demo project's 10 capabilities (catalog.ts holds its tools): each with its typical workflow (the demo
 * traces follow it, traces.ts), trigger patterns and keywords, and the requests a user would make for it.
 */

export interface DemoCapability {
  id: string;
  name: string;
  description: string;
  /** Typical workflow: steps in order; `dep` lists indices of earlier steps this one depends on. */
  workflow: { tool: string; dep?: number[] }[];
  patterns?: string[];
  keywords?: string[];
  intents: string[];
  priority?: number;
  dependsOn?: string[];
}

// biome-ignore format: one capability per line reads as a table
export const DEMO_CAPABILITIES: DemoCapability[] = [
  {
    id: "ship-change",
    name: "Ship a code change",
    description: "Commit a change on a branch, push it and open a pull request",
    workflow: [{ tool: "git.status" }, { tool: "git.diff" }, { tool: "git.create_branch" }, { tool: "git.commit", dep: [1] }, { tool: "git.push", dep: [2, 3] }, { tool: "github.create_pull_request", dep: [4] }],
    patterns: ["open (a )?(pull request|pr)", "ship.*(change|fix)"],
    keywords: ["pull request", "commit", "push"],
    intents: ["open a pull request with my changes", "commit and push this fix then open a PR", "ship my change for review", "create a branch and a pull request for the refactor"],
    dependsOn: ["run-checks"],
  },
  {
    id: "run-checks",
    name: "Run the checks",
    description: "Run the linter, the unit tests and the build",
    workflow: [{ tool: "ci.run_linter" }, { tool: "ci.run_tests" }, { tool: "ci.build", dep: [1] }],
    keywords: ["tests", "lint", "build"],
    intents: ["run the tests and the linter", "check that the build passes", "make sure all tests pass before merging"],
  },
  {
    id: "release",
    name: "Release to production",
    description: "Back up the database, migrate, deploy and announce the release",
    workflow: [{ tool: "ci.build" }, { tool: "db.backup" }, { tool: "db.migrate", dep: [1] }, { tool: "ci.deploy", dep: [0, 2] }, { tool: "slack.post_message", dep: [3] }],
    patterns: ["deploy.*(prod|production)", "release (version|v)\\d"],
    keywords: ["deploy", "release", "production"],
    intents: ["deploy the new version to production", "release v2.3 to prod and tell the team", "ship the release to production after migrating the database"],
    priority: 2,
    dependsOn: ["run-checks"],
  },
  {
    id: "incident-triage",
    name: "Triage an incident",
    description: "Look at alerts, metrics and logs, then open a ticket and notify the channel",
    workflow: [{ tool: "monitor.get_alerts" }, { tool: "monitor.query_metrics", dep: [0] }, { tool: "monitor.read_logs", dep: [0] }, { tool: "ticket.create", dep: [1, 2] }, { tool: "slack.post_message", dep: [3] }],
    patterns: ["(outage|incident|alert).*(prod|service)", "error rate.*(high|spike)"],
    keywords: ["incident", "outage", "alert", "logs"],
    intents: ["the checkout service is throwing errors, investigate", "error rate spike in production, find out why", "triage the alert on the payments service", "investigate the outage and open a ticket"],
    priority: 3,
  },
  {
    id: "rollback",
    name: "Roll back a bad deploy",
    description: "Roll back production after a failed deploy and tell the team",
    workflow: [{ tool: "monitor.get_alerts" }, { tool: "ci.rollback" }, { tool: "slack.post_message", dep: [1] }, { tool: "ticket.create" }],
    patterns: ["roll ?back"],
    keywords: ["rollback", "revert deploy"],
    intents: ["roll back the last deploy", "the release broke production, revert it", "rollback production to the previous version"],
    priority: 4,
  },
  {
    id: "answer-issue",
    name: "Answer a GitHub issue",
    description: "Read an issue, search code and docs, and reply with a comment",
    workflow: [{ tool: "github.list_issues" }, { tool: "github.get_issue", dep: [0] }, { tool: "fs.search_files" }, { tool: "docs.search" }, { tool: "github.comment_issue", dep: [1, 2, 3] }],
    keywords: ["issue", "reply"],
    intents: ["answer the newest GitHub issue", "reply to the bug report about login", "look at open issues and respond to the question"],
  },
  {
    id: "data-report",
    name: "Database report",
    description: "Inspect a table, query it and mail the results",
    workflow: [{ tool: "db.describe_table" }, { tool: "db.query", dep: [0] }, { tool: "fs.write_file", dep: [1] }, { tool: "email.send", dep: [2] }],
    patterns: ["(report|numbers).*(database|table|sql)"],
    keywords: ["report", "sql", "query"],
    intents: ["send me a report of last week's signups from the database", "query the orders table and email the numbers", "how many users signed up yesterday, mail the result"],
  },
  {
    id: "research",
    name: "Research a topic",
    description: "Search the web, summarise pages and write notes to the wiki",
    workflow: [{ tool: "web.search" }, { tool: "web.summarize_page", dep: [0] }, { tool: "docs.create_page", dep: [1] }],
    keywords: ["research", "summarise", "notes"],
    intents: ["research vector databases and write a wiki page", "find articles about rate limiting and summarise them", "look up the latest on WebGPU and take notes"],
  },
  {
    id: "schedule-meeting",
    name: "Schedule a meeting",
    description: "Find a free slot, create the event and send an email",
    workflow: [{ tool: "calendar.find_free_slot" }, { tool: "calendar.create_event", dep: [0] }, { tool: "email.send", dep: [1] }],
    patterns: ["(schedule|book|set up) (a )?(meeting|call)"],
    keywords: ["meeting", "calendar", "invite"],
    intents: ["schedule a meeting with Ana and Bo next week", "book a call with the design team", "set up a one hour sync with the backend team"],
  },
  {
    id: "edit-code",
    name: "Edit code",
    description: "Find, read and change source files",
    workflow: [{ tool: "fs.list_directory" }, { tool: "fs.search_files" }, { tool: "fs.read_file", dep: [1] }, { tool: "fs.write_file", dep: [2] }, { tool: "git.diff", dep: [3] }],
    keywords: ["edit", "refactor", "rename"],
    intents: ["rename the function parseDate in the code base", "fix the typo in the config loader", "refactor the retry logic in the http client"],
  },
];
