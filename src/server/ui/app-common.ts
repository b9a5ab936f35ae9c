/// <reference lib="dom" />
/**
 * What the console's views share (app.ts is the entry): the project of the page, element lookup, number
 * formats, the palette, and the JSON calls to the server.
 */

export type Json = any;

export const params = new URLSearchParams(location.search);
export const project = params.get("project") ?? undefined;
export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
  "#1f77b4",
  "#8c564b",
];
export const EDGE_COLOURS: Record<string, string> = {
  dependency: "#d2491b",
  contains: "#6a51a3",
  provides: "#2b8cbe",
  sequence: "#9aa3b5",
};

export function esc(s: unknown): string {
  return String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
export function fmt(v: unknown, digits = 3): string {
  return typeof v === "number" && Number.isFinite(v) ? v.toFixed(digits) : "–";
}
export function pct(v: unknown): string {
  return typeof v === "number" && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "–";
}
export function ms(v: unknown): string {
  return typeof v === "number" && Number.isFinite(v)
    ? v >= 1000
      ? `${(v / 1000).toFixed(1)} s`
      : `${v.toFixed(v < 10 ? 2 : 0)} ms`
    : "–";
}
export function decision(d: unknown): string {
  return `<span class="decision ${esc(d)}">${esc(d)}</span>`;
}
export function status(text: string): void {
  $("status").textContent = text;
}

export function withProject(path: string): string {
  if (!project) return path;
  return `${path}${path.includes("?") ? "&" : "?"}project=${encodeURIComponent(project)}`;
}

export async function getJson(path: string): Promise<Json> {
  const r = await fetch(withProject(path), { credentials: "same-origin" });
  const body = await r.json();
  if (!r.ok) throw new Error(body?.error?.message ?? `${r.status}`);
  return body;
}

export async function postJson(path: string, body: object): Promise<Json> {
  const r = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(project ? { ...body, project } : body),
  });
  const out = await r.json();
  if (!r.ok) throw new Error(out?.error?.message ?? `${r.status}`);
  return out;
}
