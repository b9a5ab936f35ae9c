/**
 * `toolgraph/demo` — the demo project as data: the catalog (41 tools, 10 capabilities) and seeded traces that
 * follow its capabilities' workflows. `toolgraph demo` loads the same data; use it to try the library or to
 * measure it on a fixed, reproducible workload.
 */
export { DEMO_CAPABILITIES, type DemoCapability, demoCatalog } from "./catalog.ts";
export { demoTraces } from "./traces.ts";
