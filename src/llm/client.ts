import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { countTokens } from '../text/text.ts';
import { Budget, estimateCall, type CallEstimate } from './budget.ts';
import { CircuitBreaker } from './breaker.ts';
import { cacheKey, ResponseCache } from './cache.ts';
import { isLlmConfigured, loadLlmConfig, type LlmConfig, type LlmConfigInput } from './config.ts';
import { LlmError, type LlmErrorCode } from './errors.ts';
import { Ledger, type LedgerEntry } from './ledger.ts';
import { Limiter } from './limiter.ts';
import { maskSecret } from './mask.ts';
import { costOf } from './pricing.ts';
import { classify, type Failure } from './failure.ts';
import { backoffDelay, realSleep, type SleepFn } from './retry.ts';
import { jsonModeInstruction, parseStructured, repairPrompt, toResponseSchema, type ResponseSchema } from './structured.ts';
import type {
  ChatMessage,
  CompletionRequest,
  CompletionResult,
  LlmClient,
  LlmRole,
  StructuredRequest,
  StructuredResult,
  TokenUsage,
} from './types.ts';

/** The OpenAI API, used when no base URL is configured. */
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Things a caller (or a test) may swap in. */
export interface LlmClientDeps {
  /** How backoff waits; tests record the delay instead of waiting. Default: setTimeout. */
  sleep?: SleepFn;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Clock in ms (latency, `retry-after` dates, ledger times). Default Date.now. */
  now?: () => number;
  /** Called with every ledger entry as it is recorded (e.g. to append it to a run's events). */
  onLedgerEntry?: (entry: LedgerEntry) => void;
  /** Non-fatal problems (e.g. a cache file that could not be written). The library never prints. */
  logger?: (level: 'info' | 'warn', message: string) => void;
}

/** The real client: `LlmClient` plus its ledger, budget and configuration. */
export interface MeteredLlmClient extends LlmClient {
  /** The configuration in use (holds the API key: do not write it out; use `redactLlmConfig`). */
  readonly config: LlmConfig;
  readonly ledger: Ledger;
  readonly budget: Budget;
  /** Open once calls kept failing the same way; from then on every call is refused with `E_LLM_CIRCUIT`. */
  readonly breaker: CircuitBreaker;
  /** The model configured for `role`, if any. */
  modelFor(role: LlmRole): string | undefined;
  /** True when an embedding model is configured. */
  hasEmbeddings(): boolean;
  /**
   * Embeds texts with the configured embedding model: cached per text, batched, budgeted, retried and booked in the
   * ledger (kind `embed`) like completions. Throws `E_LLM_NO_MODEL` without an embedding model.
   */
  embed(req: EmbedRequest): Promise<EmbedResult>;
}

export interface EmbedRequest {
  texts: string[];
  /** Whose spending this is, for the ledger. Default `design` (a design's `tools.embed`). */
  role?: LlmRole;
  /** Set false to skip the response cache for this call. */
  cache?: boolean;
}

export interface EmbedResult {
  /** One vector per text, in order. */
  vectors: number[][];
  model: string;
  /** Tokens billed for this call (0 when every text came from the cache). */
  usage: TokenUsage;
  /** True when every vector came from the cache. */
  cached: boolean;
  /** Dollars; null when the model has no price. */
  cost: number | null;
}

/** Inputs per embeddings request. */
const EMBED_BATCH = 128;

/**
 * Builds the client. Throws LlmError `E_LLM_CONFIG` when there is no endpoint (no key and no base URL; use
 * `openLlmClient` to get null instead) or when a dollar budget is set but a configured model has no price.
 */
export function createLlmClient(config: LlmConfig, deps: LlmClientDeps = {}): MeteredLlmClient {
  if (!isLlmConfigured(config)) {
    throw new LlmError(
      'E_LLM_CONFIG',
      'no LLM endpoint configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server), or run offline',
    );
  }
  if (config.budget.maxDollars !== undefined) {
    const used = Object.entries(config.models);
    if (config.embeddingModel) used.push(['embedding', config.embeddingModel]);
    const unpriced = used.filter(([, model]) => model !== undefined && !config.prices[model]);
    if (unpriced.length) {
      const [role, model] = unpriced[0]!;
      throw new LlmError(
        'E_LLM_CONFIG',
        `a dollar budget is set but model ${model} (role ${role}) has no price; add prices.${model} or use a token budget`,
      );
    }
  }
  return new OpenAiCompatibleClient(config, deps);
}

/**
 * The client when an endpoint is configured (environment + overrides), else null: callers then use their offline
 * algorithm. Invalid settings still throw (`E_LLM_CONFIG`), so a typo is not silently taken for "offline".
 */
export function openLlmClient(
  env: Record<string, string | undefined> = process.env,
  overrides: LlmConfigInput = {},
  deps: LlmClientDeps = {},
): MeteredLlmClient | null {
  const config = loadLlmConfig(env, overrides);
  return isLlmConfigured(config) ? createLlmClient(config, deps) : null;
}

/** What one logical call (complete or structured) has used so far, kept even when it fails. */
interface CallTracker {
  requests: number;
  cacheReplies: number;
  billed: TokenUsage;
  cost: number | null;
  estimated: boolean;
  /** Usage of the latest request sent. */
  lastUsage?: TokenUsage;
}

interface Exchange {
  text: string;
  usage: TokenUsage;
  fromCache: boolean;
  key: string;
}

class OpenAiCompatibleClient implements MeteredLlmClient {
  readonly ledger: Ledger;
  readonly budget: Budget;
  readonly breaker: CircuitBreaker;
  private readonly openai: OpenAI;
  private readonly limiter: Limiter;
  private readonly cache: ResponseCache | undefined;
  private readonly baseURL: string;
  private readonly sleep: SleepFn;
  private readonly random: () => number;
  private readonly now: () => number;
  /** Models whose server refused `json_schema`; they get `json_object` from then on. */
  private readonly jsonObjectOnly = new Set<string>();

  constructor(
    readonly config: LlmConfig,
    private readonly deps: LlmClientDeps,
  ) {
    this.baseURL = (config.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    // maxRetries 0: retrying is ours (settable, testable, budget-checked before every attempt)
    this.openai = new OpenAI({ apiKey: config.apiKey ?? 'none', baseURL: this.baseURL, maxRetries: 0, timeout: config.timeoutMs });
    this.limiter = new Limiter(config.concurrency);
    this.cache = config.cache && config.cacheDir ? new ResponseCache(config.cacheDir) : undefined;
    this.ledger = new Ledger(deps.onLedgerEntry);
    this.budget = new Budget(config.budget);
    this.breaker = new CircuitBreaker(config.breakerFailures);
    this.sleep = deps.sleep ?? realSleep;
    this.random = deps.random ?? Math.random;
    this.now = deps.now ?? Date.now;
  }

  hasRole(role: LlmRole): boolean {
    return this.config.models[role] !== undefined;
  }

  modelFor(role: LlmRole): string | undefined {
    return this.config.models[role];
  }

  hasEmbeddings(): boolean {
    return this.config.embeddingModel !== undefined;
  }

  async embed(req: EmbedRequest): Promise<EmbedResult> {
    const model = this.config.embeddingModel;
    const role = req.role ?? 'design';
    if (model === undefined) {
      throw new LlmError(
        'E_LLM_NO_MODEL',
        'no embedding model configured; set MEMSTEER_EMBEDDING_MODEL (or embeddingModel), or check hasEmbeddings() first',
        { role },
      );
    }
    const dimensions = this.config.embeddingDimensions;
    const useCache = this.cache !== undefined && req.cache !== false;
    return this.meteredAs(role, model, 'embed', async (_model, tracker) => {
      const keys = req.texts.map((input) => cacheKey({ kind: 'embedding', baseURL: this.baseURL, model, input, dimensions }));
      const vectors: Array<number[] | undefined> = keys.map((key) => {
        const hit = useCache ? this.cache!.get(key) : undefined;
        if (!hit) return undefined;
        const v = parseVector(hit.text);
        if (v) tracker.cacheReplies++;
        return v;
      });
      const missing = vectors.flatMap((v, i) => (v === undefined ? [i] : []));
      for (let at = 0; at < missing.length; at += EMBED_BATCH) {
        const batch = missing.slice(at, at + EMBED_BATCH);
        const inputs = batch.map((i) => req.texts[i]!);
        const response = await this.send(
          role,
          model,
          tracker,
          () => ({
            estimate: estimateCall([], inputs.join('\n'), 0, this.config.prices[model]),
            run: () =>
              this.openai.embeddings.create({
                model,
                input: inputs,
                encoding_format: 'float',
                ...(dimensions === undefined ? {} : { dimensions }),
              }),
          }),
          (r) => ({
            promptTokens: r.usage?.prompt_tokens ?? inputs.reduce((n, t) => n + countTokens(t), 0),
            completionTokens: 0,
            cachedTokens: 0,
          }),
        );
        const byIndex = [...response.data].sort((a, b) => a.index - b.index);
        if (byIndex.length !== inputs.length) {
          throw new LlmError(
            'E_LLM_HTTP',
            `${this.baseURL} returned ${byIndex.length} embeddings for ${inputs.length} inputs (model ${model})`,
            {
              role,
              model,
              attempts: tracker.requests,
            },
          );
        }
        batch.forEach((textIndex, j) => {
          const vector = Array.from(byIndex[j]!.embedding);
          vectors[textIndex] = vector;
          if (useCache) {
            this.store(keys[textIndex]!, model, {
              text: JSON.stringify(vector),
              usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
              fromCache: false,
              key: keys[textIndex]!,
            });
          }
        });
      }
      return {
        vectors: vectors as number[][],
        model,
        usage: { ...tracker.billed },
        cached: missing.length === 0,
        cost: missing.length === 0 ? 0 : tracker.cost,
      };
    });
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    return this.metered(req, 'complete', async (model, tracker) => {
      const ex = await this.exchange(req, model, req.messages, undefined, tracker);
      if (!ex.fromCache && req.cache !== false) this.store(ex.key, model, ex);
      return {
        text: ex.text,
        usage: ex.usage,
        cached: ex.fromCache,
        model,
        cost: ex.fromCache ? 0 : tracker.cost,
        attempts: tracker.requests + tracker.cacheReplies,
      };
    });
  }

  async structured<T>(req: StructuredRequest<T>): Promise<StructuredResult<T>> {
    return this.metered(req, 'structured', async (model, tracker) => {
      const rs = toResponseSchema(req.schema, req.schemaName);
      let messages: ChatMessage[] = [...req.messages];
      let firstKey: string | undefined;
      let allFromCache = true;
      const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
      for (let repair = 0; ; repair++) {
        const ex = await this.exchange(req, model, messages, rs, tracker);
        firstKey ??= ex.key;
        allFromCache &&= ex.fromCache;
        addUsage(usage, ex.usage);
        const parsed = parseStructured(ex.text, req.schema);
        if (parsed.ok) {
          // only replies that validate are cached, and also under the original request, so a rerun skips the repairs
          if (req.cache !== false) {
            if (!ex.fromCache) this.store(ex.key, model, ex);
            if (firstKey !== ex.key) this.store(firstKey, model, ex);
          }
          return {
            value: parsed.value,
            usage,
            cached: allFromCache,
            model,
            cost: allFromCache ? 0 : tracker.cost,
            attempts: tracker.requests + tracker.cacheReplies,
          };
        }
        if (repair >= this.config.schemaRepairs) {
          throw new LlmError(
            'E_LLM_SCHEMA',
            `the ${req.role} model (${model}) gave no valid ${rs.name} after ${repair + 1} replies; last error: ${parsed.error}`,
            { role: req.role, model, attempts: tracker.requests },
          );
        }
        messages = [...messages, { role: 'assistant', content: ex.text }, { role: 'user', content: repairPrompt(parsed.error) }];
      }
    });
  }

  /** Runs one logical call and records it in the ledger, whether it succeeds or fails. */
  private async metered<R>(
    req: CompletionRequest,
    kind: LedgerEntry['kind'],
    run: (model: string, tracker: CallTracker) => Promise<R>,
  ): Promise<R> {
    const model = this.config.models[req.role];
    if (model === undefined) {
      throw new LlmError(
        'E_LLM_NO_MODEL',
        `no model configured for the ${req.role} role; set MEMSTEER_MODEL_${req.role.toUpperCase()} (or models.${req.role}), ` +
          'or check hasRole() first',
        { role: req.role },
      );
    }
    return this.meteredAs(req.role, model, kind, run);
  }

  private async meteredAs<R>(
    role: LlmRole,
    model: string,
    kind: LedgerEntry['kind'],
    run: (model: string, tracker: CallTracker) => Promise<R>,
  ): Promise<R> {
    const tracker: CallTracker = {
      requests: 0,
      cacheReplies: 0,
      billed: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
      cost: 0,
      estimated: false,
    };
    const start = this.now();
    const record = (error: string | undefined): void => {
      const billedAnything = tracker.billed.promptTokens + tracker.billed.completionTokens > 0;
      this.ledger.record({
        role,
        model,
        kind,
        ...tracker.billed,
        // an unpriced model's spend is unknown, but a call that billed nothing (cache hit, refused) cost nothing
        cost: billedAnything ? tracker.cost : 0,
        latencyMs: Math.max(0, this.now() - start),
        cached: tracker.requests === 0 && tracker.cacheReplies > 0,
        attempts: tracker.requests,
        ok: error === undefined,
        ...(error === undefined ? {} : { error }),
        ...(tracker.estimated ? { estimated: true } : {}),
        at: new Date(start).toISOString(),
      });
    };
    try {
      const result = await run(model, tracker);
      record(undefined);
      return result;
    } catch (err) {
      const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
      // a call refused (by the budget or the open breaker) before anything was sent is not a call
      if (tracker.requests + tracker.cacheReplies > 0 || (code !== 'E_BUDGET' && code !== 'E_LLM_CIRCUIT')) {
        record(code ?? 'E_LLM_UNKNOWN');
      }
      if (err instanceof LlmError) err.billed = { ...tracker.billed };
      // last guard: whatever a server put in an error message (it may echo the key) is relayed masked
      if (err instanceof Error) err.message = maskSecret(err.message, this.config.apiKey);
      throw err;
    }
  }

  /** One reply for `messages`: from the cache, or from the endpoint with retries, budget checks and the concurrency limit. */
  private async exchange(
    req: CompletionRequest,
    model: string,
    messages: ChatMessage[],
    rs: ResponseSchema | undefined,
    tracker: CallTracker,
  ): Promise<Exchange> {
    const useCache = this.cache !== undefined && req.cache !== false;
    const key = cacheKey({
      baseURL: this.baseURL,
      model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      temperature: req.temperature,
      maxTokens: req.maxTokens,
      responseFormat: rs && { type: 'json_schema', name: rs.name, schema: rs.schema },
    });
    if (useCache) {
      const hit = this.cache!.get(key);
      if (hit) {
        tracker.cacheReplies++;
        return { text: hit.text, usage: hit.usage, fromCache: true, key };
      }
    }

    let mode: 'text' | 'json_schema' | 'json_object' = 'text';
    let sent: ChatMessage[] = messages;
    const response = await this.send<ChatCompletion>(
      req.role,
      model,
      tracker,
      () => {
        mode = rs === undefined ? 'text' : this.jsonObjectOnly.has(model) ? 'json_object' : 'json_schema';
        sent = mode === 'json_object' ? [{ role: 'system', content: jsonModeInstruction(rs!) }, ...messages] : messages;
        const schemaText = mode === 'json_schema' ? JSON.stringify(rs!.schema) : '';
        const body = this.body(model, sent, req, mode, rs);
        return {
          estimate: estimateCall(sent, schemaText, req.maxTokens ?? this.config.defaultMaxTokens, this.config.prices[model]),
          run: () => this.openai.chat.completions.create(body),
        };
      },
      (r) => {
        if (r.usage) {
          return {
            promptTokens: r.usage.prompt_tokens ?? 0,
            completionTokens: r.usage.completion_tokens ?? 0,
            cachedTokens: r.usage.prompt_tokens_details?.cached_tokens ?? 0,
          };
        }
        // some compatible servers report no usage; count it ourselves rather than book the call as free
        tracker.estimated = true;
        const text = r.choices[0]?.message.content ?? '';
        return {
          promptTokens: sent.reduce((n, m) => n + countTokens(m.content) + 4, 0),
          completionTokens: countTokens(text),
          cachedTokens: 0,
        };
      },
      (status) => {
        if (mode !== 'json_schema' || (status !== 400 && status !== 422)) return false;
        // the server does not take json_schema (or this schema); plain JSON mode, validated here, is the fallback
        this.jsonObjectOnly.add(model);
        this.deps.logger?.('info', `${this.baseURL} refused json_schema for ${model} (HTTP ${status}); using json_object`);
        return true;
      },
    );
    const text = response.choices[0]?.message.content ?? '';
    return { text, usage: tracker.lastUsage!, fromCache: false, key };
  }

  /**
   * Sends one request under the budget, the concurrency limit and the retry policy, and books what it used.
   * `prepare` runs before every attempt (a format fallback may change the request); `resendAfter` may turn a
   * refusal into an immediate resend that does not count as a retry.
   */
  private async send<T>(
    role: LlmRole,
    model: string,
    tracker: CallTracker,
    prepare: () => { estimate: CallEstimate; run: () => Promise<T> },
    measure: (value: T) => TokenUsage,
    resendAfter?: (status: number | undefined) => boolean,
  ): Promise<T> {
    const price = this.config.prices[model];
    let retriesUsed = 0;
    for (;;) {
      this.breaker.check();
      const { estimate, run } = prepare();
      const settle = this.budget.reserve(role, estimate);
      tracker.requests++;
      let value: T;
      try {
        // Checked again when the call leaves the limiter's queue: calls queued before the breaker opened must not go out.
        value = await this.limiter.run(() => {
          this.breaker.check();
          return run();
        });
      } catch (err) {
        settle({ tokens: 0, dollars: 0 });
        if (this.breaker.isOpenError(err)) {
          tracker.requests--;
          throw err;
        }
        if (resendAfter?.(err instanceof OpenAI.APIError ? err.status : undefined)) continue;
        const failure = classify(err, this.now());
        if (!failure.retryable || retriesUsed >= this.config.retries) {
          const final = this.finalError(failure, role, model, tracker.requests, err);
          throw this.breaker.failure({ code: final.code, status: failure.status, message: final.message }) ?? final;
        }
        retriesUsed++;
        const wait =
          failure.retryAfterMs !== undefined
            ? Math.min(failure.retryAfterMs, this.config.maxRetryAfterMs)
            : backoffDelay(retriesUsed, this.config.backoffMs, this.config.maxBackoffMs, this.random);
        await this.sleep(wait);
        continue;
      }
      this.breaker.success();
      const usage = measure(value);
      const cost = costOf(usage, price);
      settle({ tokens: usage.promptTokens + usage.completionTokens, dollars: cost });
      addUsage(tracker.billed, usage);
      tracker.cost = tracker.cost === null || cost === null ? null : tracker.cost + cost;
      tracker.lastUsage = usage;
      return value;
    }
  }

  private body(
    model: string,
    messages: ChatMessage[],
    req: CompletionRequest,
    mode: 'text' | 'json_schema' | 'json_object',
    rs: ResponseSchema | undefined,
  ): ChatCompletionCreateParamsNonStreaming {
    const body: ChatCompletionCreateParamsNonStreaming = { model, messages: messages.map((m) => ({ role: m.role, content: m.content })) };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxTokens !== undefined) body[this.config.maxTokensParam] = req.maxTokens;
    if (mode === 'json_schema')
      body.response_format = { type: 'json_schema', json_schema: { name: rs!.name, schema: rs!.schema, strict: rs!.strict } };
    else if (mode === 'json_object') body.response_format = { type: 'json_object' };
    return body;
  }

  private store(key: string, model: string, ex: Exchange): void {
    if (!this.cache) return;
    try {
      this.cache.set({ v: 1, key, model, text: ex.text, usage: ex.usage, createdAt: new Date(this.now()).toISOString() });
    } catch (err) {
      this.deps.logger?.('warn', `could not write the LLM response cache at ${this.cache.dir}: ${(err as Error).message}`);
    }
  }

  private finalError(f: Failure, role: LlmRole, model: string, attempts: number, rawCause: unknown): LlmError {
    // a server may echo the key in its error text: every piece of it that is relayed (detail, cause) is masked
    f = { ...f, detail: maskSecret(f.detail, this.config.apiKey) };
    const cause = maskedCause(rawCause, this.config.apiKey);
    const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
    const where = `${role} call to ${model} at ${this.baseURL}`;
    const slowDown = 'lower concurrency (MEMSTEER_LLM_CONCURRENCY) or try again later';
    const message: Record<LlmErrorCode, string> = {
      E_LLM_TIMEOUT:
        `${where} timed out after ${this.config.timeoutMs} ms (${tries}); ` +
        'raise timeoutMs (MEMSTEER_LLM_TIMEOUT_MS) or check the server',
      E_LLM_CONNECTION: `${where} could not connect (${tries}): ${f.detail}; check OPENAI_BASE_URL and that the server is running`,
      E_LLM_RATE_LIMIT: `${where} still rate-limited (HTTP 429) after ${tries}; ${slowDown}`,
      E_LLM_AUTH: `${where} was refused (HTTP ${f.status}): ${f.detail}; check OPENAI_API_KEY and the model name`,
      E_LLM_HTTP: `${where} failed with HTTP ${f.status ?? '?'} (${tries}): ${f.detail}`,
      E_LLM_SCHEMA: '',
      E_LLM_NO_MODEL: '',
      E_LLM_CONFIG: '',
      E_LLM_CIRCUIT: '',
    };
    return new LlmError(f.code, message[f.code], { role, model, attempts, cause, ...(f.status === undefined ? {} : { status: f.status }) });
  }
}

/** The SDK's error as a cause, with its message masked (its headers and body are not kept). */
function maskedCause(cause: unknown, key: string | undefined): unknown {
  if (!(cause instanceof Error)) return cause;
  const copy = new Error(maskSecret(cause.message, key));
  copy.name = cause.name;
  return copy;
}

function parseVector(text: string): number[] | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((x) => typeof x === 'number') ? v : undefined;
  } catch {
    return undefined;
  }
}

function addUsage(into: TokenUsage, u: TokenUsage): void {
  into.promptTokens += u.promptTokens;
  into.completionTokens += u.completionTokens;
  into.cachedTokens += u.cachedTokens;
}
