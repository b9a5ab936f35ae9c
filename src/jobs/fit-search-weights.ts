/**
 * Search weights fitted on the project's own traces: the fusion weight β of cosine vs BM25 in the content
 * score, the weight μ of the intent memory, the weight w_c of the content channel against it, and the graph
 * weight. Which channel carries the signal depends on the catalog and on how often requests repeat, so they
 * are chosen per project — but validated the way they will be used (docs/decisions/search-weight-fitting.md):
 *
 *   cases      up to 200 past executions with an intent and a successful step, one per near-duplicate intent
 *              group before a second of any, in seeded id-hash order (independent of the storage order;
 *              algorithms/evaluation/intent-groups.ts);
 *   score      of weights w on one case = ½·AP@10(unseen) + ½·AP@10(repeat), where "unseen" answers the intent
 *              with every execution of its group left out of the memory and of the usage counts (a request
 *              never seen before), and "repeat" leaves out the execution itself only (a repeated request,
 *              its twins in the history); each answered as search answers it, the history guard's trust
 *              taken from the memory left in (algorithms/search/history-guard.ts); a set of cases scores the
 *              mean over its groups of each group's mean;
 *   selection  the staged grid search of algorithms/search/fit-fusion-weights.ts, w_c never below the content
 *              floor (channel-fusion.ts DEFAULTS.contentFloor);
 *   validation grouped k-fold (5) over the cases' groups: each fold's weights are chosen on the other folds
 *              and scored on it, against the defaults on the same cases;
 *   acceptance the fitted weights replace the defaults only when the cases span ≥ minGroups (10) groups and
 *              the out-of-sample gain is ≥ margin (0.02 mAP@10), without losing anything (unseenLoss 0) on
 *              the unseen intents of the held-out folds; otherwise the defaults stay and the stored fit says why.
 *   ties       gains within the grid search's tolerance (0.005) keep the value nearest the defaults.
 *   guard      the history guard's strength γ (algorithms/search/history-guard.ts) is fitted too (1, 0.5, 0) when
 *              the cases span ≥ guardMinGroups (100) groups, and a γ < 1 is kept only when it gains ≥ margin on
 *              the unseen intents out of sample; otherwise the fit and its validation are rerun with γ = 1
 *              (every score already computed is reused).
 *
 * Every fit is stored and announced as a refit record (learning-log.ts). Defaults: β = 0.5, μ = 0.8, w_c = 1,
 * graph 1. Stored weights below the content floor (fitted by an earlier version) are raised to it when read.
 */
import { fnv1a, groupFolds } from "../../algorithms/evaluation/intent-groups.ts";
import { averagePrecisionAtK } from "../../algorithms/evaluation/retrieval-metrics.ts";
import { type FusionWeights, fitFusionWeights } from "../../algorithms/search/fit-fusion-weights.ts";
import { drainInSlices, slicer, yieldToEventLoop } from "../view/background.ts";
import { memoryRow } from "../view/intent-memory.ts";
import type { ProjectView } from "../view/project-view.ts";
import { guardPriorFor, rowGroupsSteps, successfulRows } from "./guard-prior.ts";
import { type FitRecord, storedFits, storeFit } from "./learning-log.ts";
import { REFIT_DEFAULTS, recordedSteps, refitWhenGrown } from "./refit.ts";
import { readyToolCoherence, searchCandidates } from "./search-scoring.ts";
import {
  type Case,
  type CaseMode,
  type CaseScore,
  DEFAULT_SEARCH_WEIGHTS,
  type HeldOutSignals,
  heldOutSignals,
  inForce,
  SEARCH_FIT_DEFAULTS,
  type SearchFitOptions,
  type SearchWeights,
  type SearchWeightsFit,
} from "./search-weights.ts";

export {
  type Case,
  type CaseMode,
  type CaseScore,
  DEFAULT_SEARCH_WEIGHTS,
  type HeldOutSignals,
  heldOutSignals,
  inForce,
  SEARCH_FIT_DEFAULTS,
  SEARCH_FIT_MIN_INTENTS,
  type SearchFitOptions,
  type SearchWeights,
  type SearchWeightsFit,
} from "./search-weights.ts";

const weightKey = (w: FusionWeights, guard: number) =>
  `${w.beta}|${w.memoryWeight}|${w.contentWeight}|${w.graphWeight}|${w.historyGuard ?? guard}`;

export async function fitSearchWeights(view: ProjectView, opts: SearchFitOptions = {}): Promise<SearchWeightsFit> {
  const floor = opts.contentFloor ?? SEARCH_FIT_DEFAULTS.contentFloor;
  const dryRun = opts.dryRun ?? false;
  // The memory index already holds every execution with an intent: reuse its rows rather than reading them
  // again (on the embedded database a read of 100k steps runs on the event loop's thread).
  const memory = await view.memory();
  const rows = successfulRows(memory);
  const cfg = await view.config();
  // The guard's default strength is the project's prior (guard-prior.ts), not a constant: the fit's defaults.
  const prior = await guardPriorFor(view);
  const defaults: SearchWeights = { ...DEFAULT_SEARCH_WEIGHTS, historyGuard: prior.strength };
  const before = inForce(cfg, prior.strength);
  const s = view.snapshot;
  const data = {
    executions: rows.length,
    intents: new Set(rows.map((r) => memory.textOf[r]!)).size,
    graphVersion: s.version,
    steps: recordedSteps(s),
  };
  const empty = { betaCurve: [], memoryCurve: [], contentCurve: [], graphCurve: [], guardCurve: [] };
  const keepDefaults = async (
    reason: string,
    extra: Partial<SearchWeightsFit>,
    evidence: Record<string, unknown>,
    groups: number,
  ): Promise<SearchWeightsFit> => {
    const record = fitRecord(view, false, reason, before, defaults, evidence, {
      ...data,
      groups,
    });
    if (!dryRun) await storeFit(view, record, { searchWeights: undefined });
    return {
      ...defaults,
      ...empty,
      intents: 0,
      groups,
      accepted: false,
      reason,
      dryRun,
      record,
      ...extra,
    };
  };
  if (rows.length < SEARCH_FIT_DEFAULTS.minIntents) {
    // Not stored: a later engine fits again once the history has grown.
    const reason = `fewer than ${SEARCH_FIT_DEFAULTS.minIntents} past executions with an intent (${rows.length})`;
    return { ...defaults, ...empty, intents: rows.length, groups: 0, accepted: false, reason, dryRun };
  }
  const { group: groupOfRow, groups } = await drainInSlices(rowGroupsSteps(memory, rows));
  // One group of near-duplicate requests leaves nothing to validate on (the grouped folds need two): the
  // defaults stay, with the reason, instead of the fit failing on every request that starts it.
  if (groups.count < 2)
    return keepDefaults(
      `only ${groups.count} group of near-duplicate past requests: a fit needs two to validate on`,
      {},
      {},
      groups.count,
    );
  // Cases: one per group before a second of any, in the order of a seeded hash of the execution id (ties by
  // id), so the sample spans the groups and does not depend on the order in which the history was stored.
  const seedText = `${opts.seed ?? 1}\u0000`;
  const ids = rows.map((r) => memory.rows.ids[r]!);
  const hash = ids.map((id) => fnv1a(seedText + id));
  await yieldToEventLoop();
  const order = rows
    .map((_, j) => j)
    .sort((x, y) => hash[x]! - hash[y]! || (ids[x]! < ids[y]! ? -1 : ids[x]! > ids[y]! ? 1 : 0));
  // Each sort of the 17k rows is ~10 ms: a turn of the event loop between them.
  await yieldToEventLoop();
  const seenInGroup = new Int32Array(groups.count);
  const rank = new Int32Array(rows.length);
  for (const j of order) rank[j] = seenInGroup[groupOfRow[j]!]!++;
  const position = new Int32Array(rows.length);
  order.forEach((j, p) => {
    position[j] = p;
  });
  const picked = [...order]
    .sort((x, y) => rank[x]! - rank[y]! || position[x]! - position[y]!)
    .slice(0, opts.maxIntents ?? SEARCH_FIT_DEFAULTS.maxIntents);
  await yieldToEventLoop();
  const membersOf = new Map<number, number[]>();
  rows.forEach((_, j) => {
    const g = groupOfRow[j]!;
    const list = membersOf.get(g);
    if (list) list.push(j);
    else membersOf.set(g, [j]);
  });
  const a = view.analytics();
  const idx = await view.searchIndex();
  // The ranking's per-analytics state in slices, before the first search would compute it in one piece.
  await readyToolCoherence(s, a, idx);
  let maxSucc = 0;
  for (let i = 0; i < s.n; i++) maxSucc = Math.max(maxSucc, s.successes[i]!);
  const unseenOfGroup = new Map<number, HeldOutSignals>();
  const cases: Case[] = [];
  const slice = slicer();
  for (let i = 0; i < picked.length; i += 64) {
    const batch = picked.slice(i, i + 64).map((j) => ({ j, row: memoryRow(memory, rows[j]!) }));
    // The memory stored these intents' vectors (by text hash): read back, not embedded again.
    const vs = await view.storedEmbeddings(batch.map((b) => b.row.intent));
    for (let b = 0; b < batch.length; b++) {
      const { j, row } = batch[b]!;
      const g = groupOfRow[j]!;
      const members = membersOf.get(g)!;
      let unseenHeld = unseenOfGroup.get(g);
      if (!unseenHeld) {
        const steps = members.flatMap((m) => memoryRow(memory, rows[m]!).steps);
        unseenHeld = heldOutSignals(s, a.analytics.pagerank, steps, maxSucc);
        unseenOfGroup.set(g, unseenHeld);
      }
      const memUnseen = await view.recall(row.intent, vs[b]!, {
        excludeIds: new Set(members.map((m) => memory.rows.ids[rows[m]!]!)),
      });
      const c: Case = {
        intent: row.intent,
        v: vs[b]!,
        relevant: new Set(row.steps.filter((st) => st.success).map((st) => st.tool)),
        group: g,
        unseen: {
          memory: memUnseen.toolVotes,
          similarity: memUnseen.similarity,
          repeatRecordedAt: memUnseen.repeatRecordedAt,
          held: unseenHeld,
        },
      };
      if (members.length > 1) {
        const memRepeat = await view.recall(row.intent, vs[b]!, { excludeIds: new Set([row.id]) });
        c.repeat = {
          memory: memRepeat.toolVotes,
          similarity: memRepeat.similarity,
          repeatRecordedAt: memRepeat.repeatRecordedAt,
          held: heldOutSignals(s, a.analytics.pagerank, row.steps, maxSucc),
        };
      }
      cases.push(c);
      await slice();
    }
  }
  // AP@10 per case and weights, two slots per case (unseen, repeat), computed once and reused by every fold.
  // The fit runs beside live requests: it yields to the event loop after every case's scoring.
  const memo = new Map<string, Float64Array>();
  const apOf = async (w: FusionWeights, k: number): Promise<Float64Array> => {
    const key = weightKey(w, defaults.historyGuard);
    let m = memo.get(key);
    if (!m) {
      m = new Float64Array(cases.length * 2).fill(Number.NaN);
      memo.set(key, m);
    }
    if (Number.isNaN(m[2 * k]!)) {
      const c = cases[k]!;
      const score = (mode: CaseMode) => {
        const ranked = searchCandidates(s, a, idx, c.intent, c.v, {
          ...w,
          memory: w.memoryWeight > 0 ? mode.memory : undefined,
          historySimilarity: mode.similarity,
          repeatRecordedAt: mode.repeatRecordedAt,
          historyGuard: w.historyGuard ?? defaults.historyGuard,
          global: mode.held.global,
          executions: mode.held.executions,
          top: 10,
        }).map((h) => s.tools[h.index]!.id);
        return averagePrecisionAtK(ranked, c.relevant, 10);
      };
      // Each ranking is a search over the catalog (up to tens of ms): a turn of the event loop after each; both
      // slots are written together, once both are known.
      const unseen = score(c.unseen);
      await yieldToEventLoop();
      const repeat = c.repeat ? score(c.repeat) : unseen;
      m[2 * k] = unseen;
      m[2 * k + 1] = repeat;
      await yieldToEventLoop();
    }
    return m;
  };
  const scoreOf = async (
    pick: (k: number) => FusionWeights,
    subset: readonly number[],
  ): Promise<CaseScore & { groupScores: Map<number, number> }> => {
    const perGroup = new Map<number, { u: number; r: number; n: number }>();
    for (const k of subset) {
      const m = await apOf(pick(k), k);
      const g = perGroup.get(cases[k]!.group) ?? { u: 0, r: 0, n: 0 };
      g.u += m[2 * k]!;
      g.r += m[2 * k + 1]!;
      g.n++;
      perGroup.set(cases[k]!.group, g);
    }
    let u = 0;
    let r = 0;
    for (const g of perGroup.values()) {
      u += g.u / g.n;
      r += g.r / g.n;
    }
    const G = Math.max(1, perGroup.size);
    const groupScores = new Map([...perGroup].map(([g, x]) => [g, (x.u + x.r) / (2 * x.n)]));
    return { score: (u + r) / (2 * G), unseen: u / G, repeat: r / G, groupScores };
  };
  const all = cases.map((_, k) => k);
  const fitOn = (subset: readonly number[], guardGrid: readonly number[] | undefined) =>
    fitFusionWeights(async (w) => (await scoreOf(() => w, subset)).score, {
      contentFloor: floor,
      preferred: defaults,
      baseGuard: defaults.historyGuard,
      ...(guardGrid ? { guardGrid } : {}),
    });
  const caseGroups = new Set(cases.map((c) => c.group)).size;
  const K = Math.min(SEARCH_FIT_DEFAULTS.folds, caseGroups);
  const caseFold = groupFolds(
    { group: Int32Array.from(cases, (c) => c.group), count: groups.count, keys: groups.keys },
    K,
  );
  // The fit on every case and its grouped k-fold validation (each fold's weights chosen on the other folds only).
  const validate = async (guardGrid: readonly number[] | undefined) => {
    const full = await fitOn(all, guardGrid);
    const candidate: SearchWeights = {
      ...full.weights,
      historyGuard: full.weights.historyGuard ?? defaults.historyGuard,
    };
    const curves = {
      betaCurve: full.curves.beta.map((p) => ({ beta: p.weights.beta, map: p.objective })),
      memoryCurve: full.curves.memory.map((p) => ({ memoryWeight: p.weights.memoryWeight, map: p.objective })),
      contentCurve: full.curves.content.map((p) => ({ contentWeight: p.weights.contentWeight, map: p.objective })),
      graphCurve: full.curves.graph.map((p) => ({ graphWeight: p.weights.graphWeight, map: p.objective })),
      guardCurve: full.curves.guard.map((p) => ({
        historyGuard: p.weights.historyGuard ?? defaults.historyGuard,
        map: p.objective,
      })),
      map: full.objective,
      channels: {
        content: full.channels.content.objective,
        memory: full.channels.memory.objective,
        graph: full.channels.graph.objective,
      },
    };
    if (caseGroups < SEARCH_FIT_DEFAULTS.minGroups) return { candidate, curves };
    const foldWeights: FusionWeights[] = [];
    for (let f = 0; f < K; f++)
      foldWeights.push(
        (
          await fitOn(
            all.filter((k) => caseFold[k] !== f),
            guardGrid,
          )
        ).weights,
      );
    const { groupScores: dG, ...oosDefault } = await scoreOf(() => defaults, all);
    const { groupScores: fG, ...oosFitted } = await scoreOf((k) => foldWeights[caseFold[k]!]!, all);
    // Standard error of the gain over groups (paired per group), reported beside the margin.
    const diffs = [...fG].map(([g, x]) => x - dG.get(g)!);
    const mean = diffs.reduce((x, y) => x + y, 0) / diffs.length;
    const gainStdErr =
      diffs.length > 1
        ? Math.sqrt(diffs.reduce((x, d) => x + (d - mean) ** 2, 0) / (diffs.length - 1) / diffs.length)
        : Number.NaN;
    return {
      candidate,
      curves,
      foldWeights,
      oosDefault,
      oosFitted,
      gain: oosFitted.score - oosDefault.score,
      unseenGain: oosFitted.unseen - oosDefault.unseen,
      gainStdErr,
    };
  };
  const margin = SEARCH_FIT_DEFAULTS.margin;
  // The guard protects requests never seen before: its strength is tried away from the project's prior γ₀ only on
  // a broad history (≥ guardMinGroups groups), and kept there only when that helps the unseen intents by the margin.
  const g0 = defaults.historyGuard;
  const broad = caseGroups >= SEARCH_FIT_DEFAULTS.guardMinGroups;
  let v = await validate(broad ? [...new Set([g0, ...SEARCH_FIT_DEFAULTS.guardGrid])] : undefined);
  const kept = `history guard left at its prior ${g0.toFixed(2)} (${prior.groups} groups sampled: memory ${prior.memory.toFixed(3)} vs content ${prior.content.toFixed(3)} mAP@10 on unseen intents)`;
  let guardNote = broad
    ? ""
    : `; ${kept}: ${caseGroups} intent groups, fewer than ${SEARCH_FIT_DEFAULTS.guardMinGroups} to fit it`;
  if (v.candidate.historyGuard !== g0 && v.unseenGain !== undefined && !(v.unseenGain >= margin)) {
    guardNote = `; ${kept}: moving it to ${v.candidate.historyGuard} gained ${v.unseenGain.toFixed(3)} mAP@10 on unseen intents, below the margin ${margin}`;
    v = await validate(undefined);
  }
  const { candidate, curves } = v;
  // A guard left at the prior is not stored: the prior follows the history as it grows (guard-prior.ts).
  const { historyGuard: fittedGuard, ...rest } = candidate;
  const stored: Partial<SearchWeights> = fittedGuard === g0 ? rest : candidate;
  const evidenceBase = {
    metric: "mAP@10, ½ unseen + ½ repeat, mean over intent groups",
    cases: cases.length,
    groups: caseGroups,
    minGroups: SEARCH_FIT_DEFAULTS.minGroups,
    margin,
    unseenLoss: SEARCH_FIT_DEFAULTS.unseenLoss,
    contentFloor: floor,
  };
  if (v.oosDefault === undefined || v.oosFitted === undefined || v.gain === undefined || v.unseenGain === undefined) {
    return keepDefaults(
      `only ${caseGroups} distinct intent groups (fewer than ${SEARCH_FIT_DEFAULTS.minGroups}): too little evidence to replace the defaults`,
      { intents: cases.length, candidate, ...curves },
      evidenceBase,
      groups.count,
    );
  }
  const { oosDefault, oosFitted, gain, unseenGain, gainStdErr, foldWeights } = v;
  const outOfSample = { default: oosDefault, fitted: oosFitted, folds: K, gainStdErr };
  const evidence = {
    ...evidenceBase,
    folds: K,
    default: oosDefault,
    fitted: oosFitted,
    gain,
    gainStdErr,
    unseenGain,
    foldWeights,
  };
  const unseenLoss = SEARCH_FIT_DEFAULTS.unseenLoss;
  if (!(gain >= margin && unseenGain >= -unseenLoss)) {
    const why =
      gain < margin
        ? `out-of-sample gain ${gain.toFixed(3)} mAP@10 is below the margin ${margin} (defaults ${oosDefault.score.toFixed(3)}, fitted ${oosFitted.score.toFixed(3)})`
        : `fitted weights lose ${(-unseenGain).toFixed(4)} mAP@10 on unseen intents (defaults ${oosDefault.unseen.toFixed(3)}, fitted ${oosFitted.unseen.toFixed(3)}): a fit may not make a new request's answer worse`;
    return keepDefaults(
      why + guardNote,
      { intents: cases.length, candidate, outOfSample, ...curves },
      evidence,
      groups.count,
    );
  }
  const reason = `out-of-sample gain ${gain.toFixed(3)} mAP@10 ≥ margin ${margin} on ${caseGroups} intent groups (defaults ${oosDefault.score.toFixed(3)}, fitted ${oosFitted.score.toFixed(3)})${guardNote}`;
  const record = fitRecord(view, true, reason, before, candidate, evidence, {
    ...data,
    groups: groups.count,
  });
  if (!dryRun) await storeFit(view, record, { searchWeights: stored });
  return {
    ...candidate,
    intents: cases.length,
    groups: caseGroups,
    accepted: true,
    candidate,
    outOfSample,
    ...curves,
    reason,
    dryRun,
    record,
  };
}

function fitRecord(
  view: ProjectView,
  accepted: boolean,
  reason: string,
  before: SearchWeights,
  after: SearchWeights,
  evidence: Record<string, unknown>,
  data: Record<string, unknown>,
): FitRecord {
  return {
    kind: "search-weights",
    project: view.project,
    fittedAt: new Date(view.now()).toISOString(),
    accepted,
    reason,
    before,
    after,
    evidence,
    data,
  };
}

/**
 * The project's search weights in force (inForce: w_c never below the floor), else the defaults while a fit
 * runs in the background (started at most once per engine and project when the project has no validated fit;
 * it needs ≥ 30 past intents). The first searches are never delayed by the fit (it takes seconds on a large
 * catalog).
 */
export async function searchWeightsFor(view: ProjectView): Promise<SearchWeights> {
  const cfg = await view.config();
  // A project too young to fit (fewer intents than the fit needs: nothing stored) is tried again as it grows.
  // A fit nobody asked for never turns the content channel down (REFIT_DEFAULTS.contentFloor, refit.ts).
  refitWhenGrown(view, "search-weights", storedFits(cfg)["search-weights"], async () =>
    fitSearchWeights(await view.latest(), { contentFloor: REFIT_DEFAULTS.contentFloor }),
  );
  return inForce(cfg, (await guardPriorFor(view)).strength);
}
