import type { Principal } from '@app/registry';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { declaresTasks, McpTasks, TASKS_EXTENSION } from './mcp-tasks.service';
import { errorFrame, MCP_CODES, resultFrame, send } from '../shared/mcp-wire';
import type { RpcId } from '../shared/mcp-wire';

/**
 * The Tasks extension's methods on revision 2026-07-28: tasks/get, tasks/cancel and
 * tasks/update of the caller's own tasks, refused (400 / -32021) to a client that did not
 * declare the extension.
 */
export class McpTaskMethods {
  constructor(private readonly tasks: McpTasks) {}

  async get(principal: Principal, request: JSONRPCRequest, raw: ServerResponse) {
    if (this.withoutTasks(request, raw)) return;
    const task = await this.tasks.get(principal, taskIdOf(request));
    if (!task) return send(raw, 200, unknownTask(request.id));
    send(raw, 200, resultFrame(request.id, McpTasks.wire(task)));
  }

  async cancel(principal: Principal, request: JSONRPCRequest, raw: ServerResponse) {
    if (this.withoutTasks(request, raw)) return;
    if (!(await this.tasks.cancel(principal, taskIdOf(request))))
      return send(raw, 200, unknownTask(request.id));
    send(raw, 200, resultFrame(request.id, {}));
  }

  /** No report asks its caller for input: an update is acknowledged and has nothing to fill. */
  async update(principal: Principal, request: JSONRPCRequest, raw: ServerResponse) {
    if (this.withoutTasks(request, raw)) return;
    if (!(await this.tasks.get(principal, taskIdOf(request))))
      return send(raw, 200, unknownTask(request.id));
    send(raw, 200, resultFrame(request.id, {}));
  }

  /** tasks/* need the client to declare the extension: else 400 / -32021 naming it. */
  withoutTasks(request: JSONRPCRequest, raw: ServerResponse): boolean {
    if (declaresTasks(request.params)) return false;
    send(
      raw,
      400,
      errorFrame(
        request.id,
        MCP_CODES.missingRequiredClientCapability,
        `Missing required client capability: extensions["${TASKS_EXTENSION}"] (declare it in io.modelcontextprotocol/clientCapabilities)`,
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      ),
    );
    return true;
  }
}

function taskIdOf(request: JSONRPCRequest): unknown {
  return (request.params as { taskId?: unknown } | undefined)?.taskId;
}

/** An unknown task and another caller's task are the same answer. */
function unknownTask(id: RpcId): string {
  return errorFrame(id, MCP_CODES.invalidParams, 'Invalid params: no such task (taskId)');
}
