/**
 * The shared datasets by name, as the benches' `--dataset` flag spells them: one place for the name → converter
 * switch (each converter's README and licence notes: bench/convert/README.md).
 */
import type { ConvertedDataset } from "./common.ts";
import { convertNestful } from "./nestful.ts";
import { convertSealTools } from "./seal-tools.ts";
import { convertToolLinkOs } from "./toollinkos.ts";

export const SHARED_DATASETS = ["seal-tools", "toollinkos", "nestful"] as const;

/** The converted shared dataset `name`, or undefined for a name that is not one (the caller names its others). */
export function convertSharedDataset(name: string): ConvertedDataset | undefined {
  if (name === "seal-tools") return convertSealTools();
  if (name === "toollinkos") return convertToolLinkOs();
  if (name === "nestful") return convertNestful();
  return undefined;
}
