/**
 * The tool graph as GraphML (graphml.graphdrawing.org) and GEXF 1.3 (gexf.net), for Gephi, yEd, Cytoscape
 * and similar tools. Nodes are tools with their Louvain community, PageRank, use statistics and
 * capabilities (comma-separated: the groups); edges carry type, source, quality weight and observations.
 * GEXF also carries the drawing (viz: position, size by PageRank, colour by community). A value that is
 * unknown (a tool never run has no success rate) is left out, not written as 0. Output is deterministic.
 */
import type { GraphView, GraphViewEdge, GraphViewNode } from "../view/graph-view.ts";

type AttrType = "string" | "int" | "double";

interface Attr<T> {
  id: string;
  type: AttrType;
  get(x: T): string | number | null;
}

const NODE_ATTRS: Attr<GraphViewNode>[] = [
  { id: "description", type: "string", get: (n) => n.description },
  { id: "server", type: "string", get: (n) => n.server },
  { id: "community", type: "int", get: (n) => n.community },
  { id: "pagerank", type: "double", get: (n) => n.pagerank },
  { id: "executions", type: "int", get: (n) => n.executions },
  { id: "successRate", type: "double", get: (n) => n.successRate },
  { id: "avgLatencyMs", type: "double", get: (n) => n.avgLatencyMs },
  { id: "capabilities", type: "string", get: (n) => n.capabilities.join(",") },
];

const EDGE_ATTRS: Attr<GraphViewEdge>[] = [
  { id: "type", type: "string", get: (e) => e.type },
  { id: "source", type: "string", get: (e) => e.source },
  { id: "observations", type: "int", get: (e) => e.observations },
];

// XML 1.0 allows tab, newline, carriage return and U+0020 upward (minus surrogates handled by the encoder).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters XML forbids
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

export function xmlEscape(v: string | number): string {
  return (
    String(v)
      .replace(INVALID_XML, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
      // As character references, tab and line breaks survive attribute-value normalisation.
      .replace(/\t/g, "&#9;")
      .replace(/\n/g, "&#10;")
      .replace(/\r/g, "&#13;")
  );
}

const PALETTE: [number, number, number][] = [
  [78, 121, 167],
  [242, 142, 43],
  [225, 87, 89],
  [118, 183, 178],
  [89, 161, 79],
  [237, 201, 72],
  [176, 122, 161],
  [255, 157, 167],
  [156, 117, 95],
  [186, 176, 172],
];

export function toGraphML(g: GraphView): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    '  <key id="label" for="node" attr.name="label" attr.type="string"/>',
  ];
  for (const a of NODE_ATTRS) out.push(`  <key id="${a.id}" for="node" attr.name="${a.id}" attr.type="${a.type}"/>`);
  out.push('  <key id="weight" for="edge" attr.name="weight" attr.type="double"/>');
  for (const a of EDGE_ATTRS) out.push(`  <key id="e_${a.id}" for="edge" attr.name="${a.id}" attr.type="${a.type}"/>`);
  out.push(`  <graph id="${xmlEscape(g.project)}" edgedefault="directed">`);
  for (const n of g.nodes) {
    out.push(`    <node id="${xmlEscape(n.id)}">`, `      <data key="label">${xmlEscape(n.label)}</data>`);
    for (const a of NODE_ATTRS) {
      const v = a.get(n);
      if (v !== null && v !== "") out.push(`      <data key="${a.id}">${xmlEscape(v)}</data>`);
    }
    out.push("    </node>");
  }
  g.edges.forEach((e, i) => {
    out.push(
      `    <edge id="e${i}" source="${xmlEscape(e.from)}" target="${xmlEscape(e.to)}">`,
      `      <data key="weight">${e.weight}</data>`,
    );
    for (const a of EDGE_ATTRS) {
      const v = a.get(e);
      if (v !== null) out.push(`      <data key="e_${a.id}">${xmlEscape(v)}</data>`);
    }
    out.push("    </edge>");
  });
  out.push("  </graph>", "</graphml>");
  return `${out.join("\n")}\n`;
}

const GEXF_TYPE: Record<AttrType, string> = { string: "string", int: "integer", double: "double" };

export function toGEXF(g: GraphView): string {
  const maxPr = Math.max(1e-12, ...g.nodes.map((n) => n.pagerank));
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<gexf xmlns="http://gexf.net/1.3" xmlns:viz="http://gexf.net/1.3/viz" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd" version="1.3">',
    "  <meta>",
    "    <creator>toolgraph</creator>",
    `    <description>tool graph of project ${xmlEscape(g.project)} at graph version ${g.version}</description>`,
    "  </meta>",
    '  <graph defaultedgetype="directed" mode="static">',
    '    <attributes class="node">',
  ];
  for (const a of NODE_ATTRS) out.push(`      <attribute id="${a.id}" title="${a.id}" type="${GEXF_TYPE[a.type]}"/>`);
  out.push("    </attributes>", '    <attributes class="edge">');
  for (const a of EDGE_ATTRS) out.push(`      <attribute id="${a.id}" title="${a.id}" type="${GEXF_TYPE[a.type]}"/>`);
  out.push("    </attributes>", "    <nodes>");
  for (const n of g.nodes) {
    out.push(`      <node id="${xmlEscape(n.id)}" label="${xmlEscape(n.label)}">`, "        <attvalues>");
    for (const a of NODE_ATTRS) {
      const v = a.get(n);
      if (v !== null && v !== "") out.push(`          <attvalue for="${a.id}" value="${xmlEscape(v)}"/>`);
    }
    const [r, gr, b] = PALETTE[n.community % PALETTE.length]!;
    out.push(
      "        </attvalues>",
      `        <viz:color r="${r}" g="${gr}" b="${b}"/>`,
      `        <viz:position x="${(n.x * 500).toFixed(2)}" y="${(n.y * 500).toFixed(2)}" z="0"/>`,
      `        <viz:size value="${(4 + 16 * Math.sqrt(n.pagerank / maxPr)).toFixed(2)}"/>`,
      "      </node>",
    );
  }
  out.push("    </nodes>", "    <edges>");
  g.edges.forEach((e, i) => {
    out.push(
      `      <edge id="${i}" source="${xmlEscape(e.from)}" target="${xmlEscape(e.to)}" weight="${e.weight}">`,
      "        <attvalues>",
    );
    for (const a of EDGE_ATTRS) {
      const v = a.get(e);
      if (v !== null) out.push(`          <attvalue for="${a.id}" value="${xmlEscape(v)}"/>`);
    }
    out.push("        </attvalues>", "      </edge>");
  });
  out.push("    </edges>", "  </graph>", "</gexf>");
  return `${out.join("\n")}\n`;
}
