/**
 * The gateway's configuration file: read it and hand it to the contract's validation
 * (src/contract/gateway-config.ts: the `mcpServers` shape, servers, policies, tokens). Errors name the file
 * and the field.
 */
import { readFile } from "node:fs/promises";
import { ToolgraphError } from "../contract/errors.ts";
import { type GatewayConfig, parseGatewayConfig } from "../contract/gateway-config.ts";
import { configProblem } from "../contract/gateway-policy.ts";

export {
  GATEWAY_CONFIG_DEFAULTS,
  type GatewayConfig,
  parseGatewayConfig,
  type RemoteServerConfig,
  type StdioServerConfig,
  type UpstreamConfig,
} from "../contract/gateway-config.ts";
export type { TokenIdentity } from "../contract/gateway-policy.ts";

export async function loadGatewayConfig(file: string): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new ToolgraphError("invalid-input", `${file}: cannot read the gateway config: ${(err as Error).message}`, {
      field: "config",
      file,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw configProblem("(file)", `malformed JSON (${(err as Error).message})`, file);
  }
  return parseGatewayConfig(value, file);
}
