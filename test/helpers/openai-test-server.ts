/**
 * A small OpenAI-compatible HTTP server for tests: real HTTP on 127.0.0.1 (random port), node:http only.
 *
 * It answers `POST /v1/chat/completions` with scripted replies, `POST /v1/embeddings` with deterministic
 * vectors (or scripted replies), and records every request so a test can assert what the client sent.
 *
 * ```ts
 * const server = await startOpenAiTestServer({
 *   replies: [
 *     { status: 429, headers: { 'retry-after': '2' } },
 *     { json: { answer: 'Paris' } },                       // content = JSON.stringify(...)
 *   ],
 * });
 * const client = new OpenAI({ apiKey: 'k', baseURL: server.baseURL });
 * ...
 * expect(server.requests[1]!.body.model).toBe('gpt-4o-mini');
 * await server.close();
 * ```
 *
 * Or script by handler: `startOpenAiTestServer({ handler: (body, i) => ({ content: i === 0 ? 'not json' : '{}' }) })`.
 * Handlers may be async. When neither a queued reply nor a handler is left, the server answers 500 with a message
 * naming the call, so a test that makes more calls than it scripted fails loudly.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

/** Token counts the server reports; anything left out is estimated from the request/reply text (~4 chars a token). */
export interface ScriptedUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  /** Reported as `usage.prompt_tokens_details.cached_tokens`. Default 0. */
  cached_tokens?: number;
}

/** Fields every reply kind accepts. */
export interface ReplyTiming {
  /**
   * Wait this long before answering (use it to provoke client timeouts). If the client gives up first, the
   * server notices the closed connection and answers nothing.
   */
  delayMs?: number;
}

/** A normal `chat.completion` whose message content is `content`. */
export interface ContentReply extends ReplyTiming {
  content: string;
  usage?: ScriptedUsage;
  /** Default: the `model` of the request. */
  model?: string;
  /** Default `'stop'`. */
  finishReason?: 'stop' | 'length' | 'content_filter' | 'tool_calls';
}

/** Shorthand for a `ContentReply` whose content is `JSON.stringify(json)`. */
export interface JsonReply extends ReplyTiming {
  json: unknown;
  usage?: ScriptedUsage;
  model?: string;
}

/**
 * A raw HTTP reply, e.g. `{ status: 429, headers: { 'retry-after': '1' } }` or `{ status: 500 }`.
 * `body` defaults to an OpenAI-style `{ error: { message, type, code } }`; a string body is sent verbatim.
 */
export interface RawReply extends ReplyTiming {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Reset the TCP connection without answering (a connection error on the client side). */
export interface DestroyReply extends ReplyTiming {
  destroy: true;
}

/** An `embeddings` reply with exactly these vectors (one per input). */
export interface EmbeddingReply extends ReplyTiming {
  embeddings: number[][];
  usage?: { prompt_tokens?: number };
}

/**
 * One scripted reply. `{ delayMs }` alone waits and then answers with an empty-content completion, which is
 * what a timeout test needs (the client should have given up before).
 */
export type ScriptedReply = ContentReply | JsonReply | RawReply | DestroyReply | EmbeddingReply | (ReplyTiming & { delayMs: number });

/** What the server saw. `body` is the parsed JSON body (or the raw string when it was not JSON). */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** 0-based index among requests to the same endpoint (chat or embeddings), the one handlers receive. */
  callIndex: number;
  /** 0-based index among all requests. */
  seq: number;
}

/** Decides the reply to one request. `callIndex` counts requests to the same endpoint, from 0. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReplyHandler = (body: any, callIndex: number, request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface OpenAiTestServerOptions {
  /** Chat replies, consumed in order (one per chat request). Checked before `handler`. */
  replies?: ScriptedReply[];
  /** Chat replies once `replies` is used up (or instead of it). */
  handler?: ReplyHandler;
  /** Embedding replies, consumed in order; after that `embeddingHandler`, else deterministic vectors. */
  embeddingReplies?: ScriptedReply[];
  embeddingHandler?: ReplyHandler;
  /** Dimension of the default deterministic embeddings (overridden by the request's `dimensions`). Default 8. */
  embeddingDimensions?: number;
}

export interface OpenAiTestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `http://127.0.0.1:<port>/v1`, what an OpenAI client takes as `baseURL`. */
  baseURL: string;
  port: number;
  /** Every request received, in arrival order (including ones answered with errors). */
  requests: RecordedRequest[];
  /** Requests to `/v1/chat/completions` only. */
  chatRequests(): RecordedRequest[];
  /** Requests to `/v1/embeddings` only. */
  embeddingRequests(): RecordedRequest[];
  /** Requests being handled right now (received, not yet answered or abandoned). */
  readonly inFlight: number;
  /** The highest `inFlight` seen since start (or the last `reset`). */
  readonly maxInFlight: number;
  /** Append chat replies to the queue. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Replace the chat handler. */
  setHandler(handler: ReplyHandler | undefined): void;
  /** Forget recorded requests, counters and queued replies (the handler stays). */
  reset(): void;
  /** Stop listening and drop open connections. Calling it again is harmless. */
  close(): Promise<void>;
}

type Endpoint = 'chat' | 'embeddings';

/** Starts the server on a random free port of 127.0.0.1. */
export async function startOpenAiTestServer(options: OpenAiTestServerOptions = {}): Promise<OpenAiTestServer> {
  const chatQueue: ScriptedReply[] = [...(options.replies ?? [])];
  const embeddingQueue: ScriptedReply[] = [...(options.embeddingReplies ?? [])];
  let chatHandler = options.handler;
  const requests: RecordedRequest[] = [];
  const counts: Record<Endpoint, number> = { chat: 0, embeddings: 0 };
  let inFlight = 0;
  let maxInFlight = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, { error: { message: `test server: ${String(err)}`, type: 'server_error', code: null } });
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    let body: unknown = raw;
    try {
      body = raw.length ? JSON.parse(raw) : undefined;
    } catch {
      // keep the raw string: a test may want to see what was sent
    }
    const endpoint: Endpoint | undefined =
      req.method === 'POST' && path.endsWith('/chat/completions')
        ? 'chat'
        : req.method === 'POST' && path.endsWith('/embeddings')
          ? 'embeddings'
          : undefined;
    const callIndex = endpoint ? counts[endpoint]++ : -1;
    const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, callIndex, seq: requests.length };
    requests.push(recorded);

    if (!endpoint) {
      sendJson(res, 404, {
        error: { message: `test server: no route for ${req.method} ${path}`, type: 'invalid_request_error', code: null },
      });
      return;
    }

    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let settled = false;
    const done = (): void => {
      if (!settled) {
        settled = true;
        inFlight--;
      }
    };
    res.on('close', done);
    try {
      const reply = await nextReply(endpoint, body, callIndex, recorded);
      if (reply.delayMs && reply.delayMs > 0) {
        const gone = await waitOrClose(res, reply.delayMs);
        if (gone) return;
      }
      if (res.destroyed) return;
      respond(res, endpoint, reply, body, callIndex);
    } finally {
      if (res.writableEnded || res.destroyed) done();
    }
  }

  async function nextReply(endpoint: Endpoint, body: unknown, callIndex: number, rec: RecordedRequest): Promise<ScriptedReply> {
    if (endpoint === 'chat') {
      const queued = chatQueue.shift();
      if (queued) return queued;
      if (chatHandler) return chatHandler(body, callIndex, rec);
      return {
        status: 500,
        body: { error: { message: `test server: no scripted reply left for chat call ${callIndex}`, type: 'server_error', code: null } },
      };
    }
    const queued = embeddingQueue.shift();
    if (queued) return queued;
    if (options.embeddingHandler) return options.embeddingHandler(body, callIndex, rec);
    return { embeddings: defaultEmbeddings(body, options.embeddingDimensions ?? 8) };
  }

  function respond(res: ServerResponse, endpoint: Endpoint, reply: ScriptedReply, body: unknown, callIndex: number): void {
    if ('destroy' in reply && reply.destroy) {
      res.socket?.destroy();
      res.destroy();
      return;
    }
    if ('status' in reply) {
      const payload =
        reply.body === undefined
          ? {
              error: {
                message: `test server: scripted HTTP ${reply.status}`,
                type: reply.status === 429 ? 'rate_limit_error' : 'server_error',
                code: null,
              },
            }
          : reply.body;
      sendJson(res, reply.status, payload, reply.headers);
      return;
    }
    const b = (body ?? {}) as Record<string, unknown>;
    const requestModel = typeof b.model === 'string' ? b.model : 'test-model';
    if (endpoint === 'embeddings' || 'embeddings' in reply) {
      const vectors = 'embeddings' in reply ? reply.embeddings : defaultEmbeddings(body, options.embeddingDimensions ?? 8);
      const promptTokens = ('usage' in reply && reply.usage?.prompt_tokens) || estimateTokens(JSON.stringify(b.input ?? ''));
      sendJson(res, 200, {
        object: 'list',
        // The openai SDK asks for base64 (little-endian float32) unless the caller chose `float`.
        data: vectors.map((embedding, index) => ({
          object: 'embedding',
          index,
          embedding: b.encoding_format === 'base64' ? Buffer.from(new Float32Array(embedding).buffer).toString('base64') : embedding,
        })),
        model: requestModel,
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      });
      return;
    }
    const content = 'json' in reply ? JSON.stringify(reply.json) : 'content' in reply ? reply.content : '';
    const usage: ScriptedUsage = ('usage' in reply && reply.usage) || {};
    const promptTokens = usage.prompt_tokens ?? estimateTokens(JSON.stringify(b.messages ?? ''));
    const completionTokens = usage.completion_tokens ?? estimateTokens(content);
    sendJson(res, 200, {
      id: `chatcmpl-test-${callIndex}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: ('model' in reply && reply.model) || requestModel,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null },
          finish_reason: ('finishReason' in reply && reply.finishReason) || 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    chatRequests: () => requests.filter((r) => r.path.endsWith('/chat/completions')),
    embeddingRequests: () => requests.filter((r) => r.path.endsWith('/embeddings')),
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    enqueue: (...replies) => {
      chatQueue.push(...replies);
    },
    setHandler: (h) => {
      chatHandler = h;
    },
    reset: () => {
      requests.length = 0;
      chatQueue.length = 0;
      embeddingQueue.length = 0;
      counts.chat = 0;
      counts.embeddings = 0;
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Resolves true when the client went away before `ms` passed. */
function waitOrClose(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Unit-length vectors derived from a hash of each input, so equal inputs embed equally across runs. */
function defaultEmbeddings(body: unknown, defaultDims: number): number[][] {
  const b = (body ?? {}) as { input?: unknown; dimensions?: unknown };
  const dims = typeof b.dimensions === 'number' && b.dimensions > 0 ? b.dimensions : defaultDims;
  const inputs = Array.isArray(b.input) ? b.input : [b.input ?? ''];
  return inputs.map((input) => {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    const v: number[] = [];
    let block = createHash('sha256').update(text).digest();
    for (let i = 0; v.length < dims; i++) {
      if (i > 0 && i % 16 === 0) block = createHash('sha256').update(block).digest();
      v.push(block.readUInt16BE((i % 16) * 2) / 65535 - 0.5);
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  });
}
