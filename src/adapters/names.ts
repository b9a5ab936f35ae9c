/**
 * Framework tool names ↔ toolgraph tool ids (select.ts and the three adapters use it): by default a name is the id
 * with its first dot written `__` (these APIs do not allow dots in tool names).
 */
import { ToolgraphError } from "../index.ts";

export interface NameMapOptions {
  /**
   * The toolgraph id of a framework tool name. Default: the name itself, except that the first `__` stands for
   * a `.` (`git__commit` ↔ `git.commit`: tool names cannot hold dots on these APIs).
   */
  toolId?: ((name: string) => string) | undefined;
}

/** The default name → id: the first `__` is the id's first dot. */
export function defaultToolId(name: string): string {
  const i = name.indexOf("__");
  return i <= 0 ? name : `${name.slice(0, i)}.${name.slice(i + 2)}`;
}

/** Both directions between the framework's tool names and toolgraph's ids, over the tools the caller offers. */
export class NameMap {
  private readonly byId = new Map<string, string>();
  private readonly byName = new Map<string, string>();

  constructor(names: Iterable<string>, options: NameMapOptions = {}) {
    const toolId = options.toolId ?? defaultToolId;
    for (const name of names) {
      const id = toolId(name);
      const other = this.byId.get(id);
      if (other !== undefined)
        throw new ToolgraphError(
          "invalid-input",
          `tools: the tools ${JSON.stringify(other)} and ${JSON.stringify(name)} map to the same toolgraph id ${JSON.stringify(id)}`,
        );
      this.byId.set(id, name);
      this.byName.set(name, id);
    }
  }

  /** The framework name of a toolgraph id, or undefined when the caller does not offer that tool. */
  nameOf(id: string): string | undefined {
    return this.byId.get(id);
  }

  idOf(name: string): string | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get ids(): string[] {
    return [...this.byId.keys()];
  }
}
