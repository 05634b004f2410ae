import { Injectable } from '@nestjs/common';

/** Runs tasks one after another, in the order they were queued; a failure does not stop the queue. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * The one queue of this instance for writes to generated tools (proposals, installs, operator
 * changes and deletes), shared by MetaToolService and GeneratedToolControls so they never
 * touch one tool's row and file at once.
 */
@Injectable()
export class ToolWriteQueue extends SerialQueue {}
