/** Row types of the tables created in migrations/ (kysely's database interface). */
import type { ColumnType, Generated } from "kysely";

type Json = unknown;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Count = ColumnType<number, number | undefined, number>;

export interface ProjectsTable {
  project: string;
  graph_version: ColumnType<string, string | number | undefined, string | number>;
  config: ColumnType<Json, string | undefined, string>;
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ToolsTable {
  project: string;
  id: string;
  name: string;
  description: string;
  input_schema: ColumnType<Json | null, string | null, string | null>;
  /** Added by migration 002 (tool output schemas). */
  output_schema: ColumnType<Json | null, string | null | undefined, string | null>;
  tags: ColumnType<Json, string, string>;
  examples: ColumnType<Json, string, string>;
  anti_patterns: ColumnType<Json, string, string>;
  cost_estimate: number | null;
  avg_latency_ms: number | null;
  safety_tags: ColumnType<Json, string, string>;
  server: string | null;
  auto_registered: ColumnType<boolean, boolean | undefined, boolean>;
  /** Added by migration 018: false once the tool's upstream MCP server stopped listing it (gateway). */
  available: ColumnType<boolean, boolean | undefined, boolean>;
  /** Added by migration 021: when the upstream server stopped listing the tool (null while available). */
  unavailable_since: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Added by migration 021: when the tool left the read model after the grace period (null: in it). */
  retired_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  text_hash: string;
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface CapabilitiesTable {
  project: string;
  id: string;
  name: string;
  description: string;
  patterns: ColumnType<Json, string, string>;
  keywords: ColumnType<Json, string, string>;
  priority: number;
  text_hash: string;
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface CapabilityToolsTable {
  project: string;
  capability_id: string;
  tool_id: string;
  declared: ColumnType<boolean, boolean | undefined, boolean>;
  observations: Count;
}

export interface CapabilityDependenciesTable {
  project: string;
  from_capability: string;
  to_capability: string;
  weight: ColumnType<number, number | undefined, number>;
}

export interface EdgesTable {
  project: string;
  from_tool: string;
  to_tool: string;
  dep_count: Count;
  con_count: Count;
  prov_count: Count;
  seq_count: Count;
  /** Executions in which `from` was followed by `to` (as a sequence, dependency and/or containment): once each. */
  succ_count: Count;
  dep_declared: Count;
  con_declared: Count;
  prov_declared: Count;
  seq_declared: Count;
  weight: ColumnType<number, never, never>;
  type: ColumnType<string, never, never>;
  source: ColumnType<string, never, never>;
  first_seen: Timestamp | null;
  last_seen: Timestamp | null;
}

export interface ExecutionsTable {
  project: string;
  id: string;
  user_id: string | null;
  intent: string | null;
  intent_hash: string | null;
  capability_id: string | null;
  started_at: Timestamp;
  success: boolean;
  duration_ms: number | null;
  step_count: number;
  recorded_at: Generated<Date>;
}

export interface ExecutionStepsTable {
  project: string;
  execution_id: string;
  idx: number;
  tool_id: string;
  parent_idx: number | null;
  depends_on: ColumnType<Json, string, string>;
  success: boolean;
  duration_ms: number | null;
  at: Timestamp | null;
}

export interface ToolStatsTable {
  project: string;
  tool_id: string;
  executions: Count;
  successes: Count;
  total_duration_ms: ColumnType<number, number | undefined, number>;
  last_used_at: Timestamp | null;
}

export interface EmbeddingsTable {
  project: string;
  model: string;
  text_hash: string;
  dims: number;
  vector: Buffer;
  created_at: Generated<Date>;
}

export interface UserHistoryTable {
  project: string;
  user_id: string;
  history: ColumnType<Json, string, string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ContextThresholdsTable {
  project: string;
  context_key: string;
  state: ColumnType<Json, string, string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** Added by migration 019 (recommendation log). */
export interface RecommendationsTable {
  project: string;
  id: string;
  job: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  user_id: string | null;
  session: string | null;
  graph_version: ColumnType<string, string | number, string | number>;
  request: ColumnType<Json, string, string>;
  items: ColumnType<Json, string, string>;
  decision: string;
  top_score: number | null;
  latency_ms: number | null;
}

/** Added by migration 019 (recommendation log). */
export interface RecommendationOutcomesTable {
  project: string;
  id: Generated<string>;
  recommendation_id: string | null;
  session: string | null;
  kind: string;
  at: ColumnType<Date, Date | string | undefined, Date | string>;
  success: boolean;
  followed: boolean | null;
  execution_id: string | null;
  tools: ColumnType<Json, string, string>;
}

export interface Database {
  projects: ProjectsTable;
  tools: ToolsTable;
  capabilities: CapabilitiesTable;
  capability_tools: CapabilityToolsTable;
  capability_dependencies: CapabilityDependenciesTable;
  edges: EdgesTable;
  executions: ExecutionsTable;
  execution_steps: ExecutionStepsTable;
  tool_stats: ToolStatsTable;
  embeddings: EmbeddingsTable;
  user_history: UserHistoryTable;
  context_thresholds: ContextThresholdsTable;
  recommendations: RecommendationsTable;
  recommendation_outcomes: RecommendationOutcomesTable;
}
