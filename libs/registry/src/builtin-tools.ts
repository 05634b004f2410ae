import { Injectable } from '@nestjs/common';
import type { BuiltinTool } from './served-tool';

/** Built-in tools of this gateway process, the same for every tenant. */
@Injectable()
export class BuiltinTools {
  private readonly tools = new Map<string, BuiltinTool>();

  register(tool: BuiltinTool): void {
    this.tools.set(tool.definition.name, tool);
  }

  all(): BuiltinTool[] {
    return [...this.tools.values()];
  }
}
