import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.ts';
import { captureIO } from '../src/cli/io.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { QAItemSchema } from '../src/history/record.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { writeJsonl } from '../src/util/jsonl.ts';
import { startOpenAiTestServer, type OpenAiTestServer } from './helpers/openai-test-server.ts';
import { tempDir } from './helpers/temp-dir.ts';

describe('memsteer generate --quality with a reader model', () => {
  let server: OpenAiTestServer;
  const saved = { ...process.env };
  beforeAll(async () => {
    server = await startOpenAiTestServer();
  });
  afterAll(async () => {
    process.env = saved;
    await server.close();
  });

  it('judges answer support with the LLM blind reader, which sees question and evidence but not the answer', async () => {
    const [history] = await loadHistories(DEFAULT_SOURCE);
    const { items } = await generateSupervision(history!, { mode: 'offline', n: 6, val: 0.5, seed: 2 });
    const dir = tempDir('memsteer-quality-');
    const file = join(dir, 'sup.jsonl');
    writeJsonl(file, items, QAItemSchema);
    // The reader recovers the first item's answer and fails every other one.
    server.setHandler((body) => {
      const text = JSON.stringify(body.messages);
      const hit = text.includes(items[0]!.question);
      return {
        json: hit
          ? { answerable: true, answer: items[0]!.answer, citations: items[0]!.evidence.map((e) => e.record) }
          : { answerable: false, answer: '', citations: [] },
      };
    });
    process.env = {
      ...saved,
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'test',
      MEMSTEER_MODEL_READER: 'reader-model',
      MEMSTEER_LLM_RETRIES: '0',
    };
    const io = captureIO();
    const code = await main(['node', 'memsteer', 'generate', '--quality', file, '--history', DEFAULT_SOURCE, '--json'], io);
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(io.stdout) as { method: string; rates: { answerSupport: number; evidenceSupport: number } };
    expect(report.method).toContain('llm:reader');
    expect(report.rates.answerSupport).toBeCloseTo(1 / items.length, 3);
    expect(report.rates.evidenceSupport).toBe(1);
    const requests = server.chatRequests();
    expect(requests).toHaveLength(items.length);
    for (const [i, r] of requests.entries()) {
      expect(r.body.model).toBe('reader-model');
      expect(JSON.stringify(r.body.messages)).not.toContain(`"answer":"${items[i]!.answer}"`);
    }
  });
});
