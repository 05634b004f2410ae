import { Injectable } from '@nestjs/common';
import type { BuiltinTool } from './served-tool';

/** Built-in tools of this gateway process, the same for every tenant. */
@Injectable()
export class BuiltinTools {
  private readonly tools = new Map<string, BuiltinTool>();
  /** bumped on every registration, so indexes built before it are rebuilt */
  version = 0;

  register(tool: BuiltinTool): void {
    this.tools.set(tool.definition.name, tool);
    this.version++;
  }

  all(): BuiltinTool[] {
    return [...this.tools.values()];
  }
}
