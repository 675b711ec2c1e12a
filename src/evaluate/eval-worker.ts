/**
 * Handler module of the evaluation pool: loaded once per child process by pool-worker.ts. Its imports
 * (isolated-vm, the host tools and their process-wide bm25 index cache) stay loaded across tasks, so every
 * candidate after the first runs warm.
 */
import type { LlmMessage, SourceRecord } from '../../sandbox/contract.ts';
import type { CompiledProgram, HostToolsOptions } from '../isolate/sandbox-api.ts';
import type { TaskContext, TaskHandler } from '../pool/pool.ts';
import { createHostTools, bm25CacheStats } from '../isolate/host-tools/host-tools.ts';
import { createSandbox } from '../isolate/sandbox-runner.ts';
import { runGroup, type GroupResult, type GroupTask } from './eval-group.ts';
import { runTimeline, type TimelineTask } from './eval-timeline.ts';

/** Names of the host calls the evaluation pool offers its children. */
export const HOST_CALL_LLM = 'llm';
export const HOST_CALL_EMBED = 'embed';
/** A timeline's child reports each finished group through this host call, so a crash loses only the rest. */
export const HOST_CALL_GROUP_DONE = 'groupDone';

export interface GroupDoneArgs {
  token: string;
  index: number;
  result: GroupResult;
}

export interface LlmCallArgs {
  messages: LlmMessage[];
  options: { maxTokens?: number; temperature?: number };
}
export interface LlmCallReply {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

function bridge(task: GroupTask, ctx: TaskContext): Pick<HostToolsOptions, 'llm' | 'embedder'> {
  const out: Pick<HostToolsOptions, 'llm' | 'embedder'> = {};
  if (task.bridge.llm) {
    out.llm = (messages, options) => ctx.callHost<LlmCallReply>(HOST_CALL_LLM, { messages, options } satisfies LlmCallArgs);
  }
  if (task.bridge.embedder) {
    const { model, dim } = task.bridge.embedder;
    out.embedder = { model, dim, embed: (texts) => ctx.callHost<number[][]>(HOST_CALL_EMBED, texts) };
  }
  return out;
}

export const handlers: Record<string, TaskHandler> = {
  async evalGroup(task: GroupTask, ctx: TaskContext) {
    const program = ctx.blob<CompiledProgram>(task.programKey);
    const records = ctx.blob<SourceRecord[]>(task.recordsKey);
    return runGroup(task, program, records, { createHostTools, createSandbox }, bridge(task, ctx));
  },
  async evalTimeline(task: TimelineTask, ctx: TaskContext) {
    const first = task.groups[0];
    if (!first) return { groups: 0 };
    const program = ctx.blob<CompiledProgram>(first.programKey);
    const records = ctx.blob<SourceRecord[]>(first.recordsKey);
    // Reports are not awaited one by one: the host may be busy answering, and the pass should not wait for it. They
    // all arrive before the task's result (one IPC channel, in order), which waits for the last reply.
    const reports: Array<Promise<unknown>> = [];
    await runTimeline(task, program, records, { createHostTools, createSandbox }, bridge(first, ctx), (index, result) => {
      const report = ctx.callHost(HOST_CALL_GROUP_DONE, { token: task.token, index, result } satisfies GroupDoneArgs);
      report.catch(() => undefined); // handled below, by Promise.all; this keeps an early failure from counting as unhandled
      reports.push(report);
    });
    await Promise.all(reports);
    return { groups: task.groups.length };
  },
  bm25Stats() {
    return bm25CacheStats();
  },
};
