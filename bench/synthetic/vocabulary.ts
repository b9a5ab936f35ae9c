/**
 * Word lists of the synthetic project generator. Tool texts are composed as
 * (domain, verb, object, qualifier): 30 × 40 × 120 = 144,000 distinct (domain, verb, object) triples,
 * enough for 50,000 tools without repeating a description.
 */

export const DOMAINS = [
  "billing", "crm", "inventory", "analytics", "logistics", "hr", "payments", "shipping", "support", "marketing",
  "security", "storage", "calendar", "email", "documents", "search", "weather", "maps", "travel", "health",
  "education", "finance", "legal", "devops", "monitoring", "social", "media", "music", "news", "ecommerce",
] as const;

export const VERBS = [
  "create", "get", "list", "update", "delete", "search", "validate", "export", "import", "sync",
  "archive", "restore", "approve", "reject", "schedule", "cancel", "notify", "summarize", "translate", "classify",
  "merge", "split", "tag", "rank", "forecast", "estimate", "convert", "compress", "encrypt", "decrypt",
  "publish", "subscribe", "assign", "escalate", "audit", "reconcile", "refund", "render", "index", "verify",
] as const;

export const OBJECTS = [
  "invoice", "customer", "order", "product", "shipment", "ticket", "campaign", "report", "dashboard", "user",
  "account", "payment", "refund", "subscription", "contract", "document", "folder", "file", "image", "video",
  "playlist", "article", "comment", "message", "thread", "channel", "meeting", "event", "reminder", "task",
  "project", "milestone", "budget", "expense", "receipt", "vendor", "supplier", "warehouse", "stock level", "price",
  "discount", "coupon", "cart", "wishlist", "review", "rating", "survey", "lead", "opportunity", "quote",
  "deal", "pipeline", "forecast", "metric", "alert", "incident", "deployment", "build", "release", "branch",
  "commit", "container", "cluster", "secret", "certificate", "firewall rule", "access policy", "role", "permission", "session",
  "token", "password", "device", "sensor reading", "location", "route", "trip", "booking", "flight", "hotel",
  "itinerary", "visa", "patient record", "prescription", "appointment", "lab result", "course", "lesson", "grade", "student",
  "employee", "payslip", "timesheet", "leave request", "candidate", "job posting", "interview", "policy", "claim", "case file",
  "contact", "address", "note", "bookmark", "calendar entry", "newsletter", "audience", "segment", "keyword", "backlink",
  "forecast model", "dataset", "query", "schema", "table", "backup", "snapshot", "log entry", "trace", "feature flag",
] as const;

export const QUALIFIERS = [
  "in bulk", "by identifier", "for the current user", "with pagination", "in real time", "from an external provider",
  "with audit logging", "for a date range", "by status", "with retries", "across regions", "for a team",
  "with access checks", "as a draft", "using cached data", "on a schedule", "with a dry run", "for compliance",
  "by priority", "with a summary",
] as const;

export const SERVER_SUFFIXES = ["api", "service", "hub", "gateway", "core", "cloud", "suite", "connect"] as const;

export const DESCRIPTION_TEMPLATES: readonly ((v: string, o: string, d: string, q: string) => string)[] = [
  (v, o, d, q) => `${cap(v)} a ${o} in the ${d} system ${q}.`,
  (v, o, d, q) => `${cap(thirdPerson(v))} ${o} records of the ${d} workspace ${q}.`,
  (v, o, d, q) => `Use this ${d} tool to ${v} a ${o} ${q}.`,
  (v, o, d, q) => `${cap(d)}: ${v} ${o} data ${q}.`,
  (v, o, d, q) => `Lets an agent ${v} the ${o} held by ${d} ${q}.`,
];

export const INTENT_TEMPLATES: readonly ((phrase: string, d: string) => string)[] = [
  (p, d) => `please ${p} in ${d}`,
  (p, d) => `I need to ${p} (${d})`,
  (p, d) => `can you ${p} for our ${d} team`,
  (p) => `${p}`,
];

export const PARAM_VOCAB = [
  { name: "limit", type: "integer", description: "Maximum number of results" },
  { name: "start_date", type: "string", description: "Start of the date range (ISO 8601)" },
  { name: "end_date", type: "string", description: "End of the date range (ISO 8601)" },
  { name: "status", type: "string", description: "Status filter" },
  { name: "dry_run", type: "boolean", description: "Validate without applying changes" },
  { name: "region", type: "string", description: "Region code" },
  { name: "tags", type: "array", description: "Tags to attach or filter by" },
  { name: "options", type: "object", description: "Provider-specific options" },
] as const;

/** "notify" → "notifies", "publish" → "publishes", "get" → "gets". */
export function thirdPerson(verb: string): string {
  if (/(s|sh|ch|x|z)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
