import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { cleanAnswer, createAnswerer, toEvalAnswerer } from '../src/scoring/answerer.ts';
import { createJudge, JudgeReplySchema } from '../src/scoring/judge.ts';
import { parsePromptFile, loadPrompt, renderTemplate } from '../src/scoring/prompt-file.ts';
import { createLlmClient, loadLlmConfig } from '../src/llm/index.ts';
import type { CompletionRequest, CompletionResult, LlmClient, LlmRole, StructuredRequest, StructuredResult } from '../src/llm/types.ts';
import { startOpenAiTestServer, type OpenAiTestServer } from './helpers/openai-test-server.ts';

/** An LlmClient that records requests and replies from a script (implements the interface, no network). */
class FakeClient implements LlmClient {
  requests: CompletionRequest[] = [];
  constructor(
    private readonly roles: LlmRole[],
    private readonly reply: (req: CompletionRequest) => string,
  ) {}
  hasRole(role: LlmRole): boolean {
    return this.roles.includes(role);
  }
  async complete(req: CompletionRequest): Promise<CompletionResult> {
    this.requests.push(req);
    return {
      text: this.reply(req),
      usage: { promptTokens: 100, completionTokens: 5, cachedTokens: 0 },
      cached: false,
      model: 'fake-model',
    };
  }
  async structured<T>(req: StructuredRequest<T>): Promise<StructuredResult<T>> {
    this.requests.push(req);
    const value = req.schema.parse(JSON.parse(this.reply(req))) as T;
    return { value, usage: { promptTokens: 50, completionTokens: 10, cachedTokens: 0 }, cached: false, model: 'fake-judge', attempts: 1 };
  }
}

const context = '[8 May 2023 13:56] Ana: I went to a choir rehearsal yesterday.';

describe('prompt files', () => {
  it('carry a version line and system/user sections', () => {
    const p = loadPrompt('answerer');
    expect(p.version).toBe('answerer@2');
    expect(p.user).toContain('{{context}}');
    expect(loadPrompt('judge').version).toBe('judge@1');
    expect(() => parsePromptFile('## system\nx\n## user\ny')).toThrow(/version/);
    expect(() => renderTemplate('{{nope}}', {})).toThrow(/nope/);
  });
});

describe('answerer', () => {
  it('is the extractive reader without a client (or without an answerer model)', async () => {
    for (const client of [undefined, null, new FakeClient(['judge'], () => 'x')]) {
      const a = createAnswerer({ client });
      expect(a.id).toBe('extractive-reader@2');
      const r = await a.answer({ question: 'When did Ana go to the choir rehearsal?', context });
      expect(r).toEqual({ answer: '7 May 2023', by: 'extractive-reader' });
    }
  });
  it('asks the LLM with the fixed prompt at temperature 0', async () => {
    const client = new FakeClient(['answerer'], () => 'Answer: "7 May 2023".');
    const a = createAnswerer({ client, model: 'fake-model' });
    expect(a.id).toBe('llm:fake-model#answerer@2');
    const r = await a.answer({ question: 'When did Ana go?', context, date: '2023-06-01', answerType: 'date' });
    expect(r).toEqual({ answer: '7 May 2023', by: 'llm:fake-model', usage: { promptTokens: 100, completionTokens: 5, cachedTokens: 0 } });
    const req = client.requests[0]!;
    expect(req.role).toBe('answerer');
    expect(req.temperature).toBe(0);
    expect(req.messages[0]!.role).toBe('system');
    expect(req.messages[1]!.content).toContain(context);
    expect(req.messages[1]!.content).toContain('Today is 2023-06-01.');
    expect(req.messages[1]!.content).toContain('Answer with a date.');
    expect(req.messages[1]!.content).toContain('Question: When did Ana go?');
  });
  it("adapts to the evaluation loop's EvalAnswerer", async () => {
    const client = new FakeClient(['answerer'], () => 'Sweden');
    const e = toEvalAnswerer(createAnswerer({ client, model: 'm' }));
    const r = await e.answer({ question: 'How many times did she visit Sweden?' }, context);
    expect(r).toEqual({ answer: 'Sweden', promptTokens: 100, completionTokens: 5 });
    // No answer type reaches the answerer in evaluation: nothing derived from the gold answer.
    expect(client.requests[0]!.messages[1]!.content).not.toMatch(/Answer with/);
  });
  it('cleans model decorations off answers', () => {
    expect(cleanAnswer('  Short answer: Sweden.\nBecause…')).toBe('Sweden');
    expect(cleanAnswer("'Not mentioned'")).toBe('Not mentioned');
  });
});

describe('judge', () => {
  it('is the F1 threshold offline, with a configurable threshold', async () => {
    const j = createJudge({ threshold: 0.9 });
    expect(j.id).toBe('f1>=0.9');
    expect((await j.judge({ question: 'q', reference: 'guinea pig', answer: 'her guinea pig' })).correct).toBe(false);
    expect((await createJudge().judge({ question: 'q', reference: 'guinea pig', answer: 'her guinea pig' })).correct).toBe(true);
  });
  it('asks the LLM judge with a structured reply', async () => {
    const client = new FakeClient(['judge'], () => JSON.stringify({ reasoning: 'same date', label: 'CORRECT' }));
    const j = createJudge({ client, model: 'jm' });
    expect(j.kind).toBe('llm-judge');
    const v = await j.judge({ question: 'When?', reference: '7 May 2023', answer: 'May 7th, 2023' });
    expect(v).toMatchObject({ correct: true, by: 'llm-judge' });
    const req = client.requests[0] as StructuredRequest<z.infer<typeof JudgeReplySchema>>;
    expect(req.role).toBe('judge');
    expect(req.temperature).toBe(0);
    expect(req.messages[1]!.content).toContain('Gold answer: 7 May 2023');
    expect(JudgeReplySchema.safeParse({ reasoning: 'x', label: 'MAYBE' }).success).toBe(false);
  });
});

describe('answerer and judge over the OpenAI-compatible test server', () => {
  let server: OpenAiTestServer | undefined;
  afterEach(async () => {
    await server?.close();
  });
  it('answers and judges through the real client', async () => {
    server = await startOpenAiTestServer({
      replies: [
        { content: '7 May 2023', usage: { prompt_tokens: 120, completion_tokens: 4 } },
        { json: { reasoning: 'same day', label: 'CORRECT' } },
      ],
    });
    const config = loadLlmConfig({}, { apiKey: 'sk-test', baseURL: server.baseURL, models: { answerer: 'gpt-test', judge: 'judge-test' } });
    const client = createLlmClient(config);
    const answerer = createAnswerer({ client });
    expect(answerer.id).toBe('llm:gpt-test#answerer@2');
    const r = await answerer.answer({ question: 'When did Ana go to the choir rehearsal?', context });
    expect(r.answer).toBe('7 May 2023');
    expect(r.by).toBe('llm:gpt-test');
    const v = await createJudge({ client }).judge({ question: 'When?', reference: 'May 7, 2023', answer: r.answer });
    expect(v.correct).toBe(true);
    const chats = server.chatRequests();
    expect(chats).toHaveLength(2);
    const body = chats[0]!.body as { model: string; temperature: number; messages: Array<{ content: string }> };
    expect(body.model).toBe('gpt-test');
    expect(body.temperature).toBe(0);
    expect(body.messages[1]!.content).toContain('choir rehearsal');
  });
});
