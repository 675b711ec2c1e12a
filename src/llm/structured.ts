import { z } from 'zod';
import { describeZodIssues } from '../errors.ts';

/** The JSON schema sent for a zod schema, and whether OpenAI's strict mode can take it. */
export interface ResponseSchema {
  name: string;
  schema: Record<string, unknown>;
  strict: boolean;
}

const converted = new WeakMap<z.ZodType, { schema: Record<string, unknown>; strict: boolean }>();

/**
 * Converts a zod schema with `z.toJSONSchema` (output side; what cannot be represented, such as transforms,
 * becomes `{}`). The root should be an object: OpenAI's structured outputs require one.
 */
export function toResponseSchema(schema: z.ZodType, name: string): ResponseSchema {
  let hit = converted.get(schema);
  if (!hit) {
    const { $schema: _drop, ...json } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Record<string, unknown>;
    hit = { schema: json, strict: isStrictCompatible(json) };
    converted.set(schema, hit);
  }
  return { name: name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'reply', ...hit };
}

/**
 * OpenAI's strict mode needs every object closed (`additionalProperties: false`) with all its properties
 * required; zod `.optional()` fields break that, so such schemas are sent non-strict (validated here anyway).
 */
export function isStrictCompatible(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isStrictCompatible);
  if (node === null || typeof node !== 'object') return true;
  const n = node as Record<string, unknown>;
  if (n.type === 'object' || n.properties !== undefined) {
    const props = Object.keys((n.properties as Record<string, unknown> | undefined) ?? {});
    const required = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
    if (n.additionalProperties !== false || props.some((p) => !required.has(p))) return false;
  }
  return Object.values(n).every(isStrictCompatible);
}

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Parses a reply as JSON and validates it. Tolerates a Markdown code fence around the JSON, which models in
 * plain JSON mode often add.
 */
export function parseStructured<T>(text: string, schema: z.ZodType<T>): ParseOutcome<T> {
  const body = stripFence(text.trim());
  if (body === '') return { ok: false, error: 'the reply was empty' };
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (err) {
    return { ok: false, error: `the reply is not valid JSON (${(err as Error).message})` };
  }
  const r = schema.safeParse(data);
  if (!r.success) return { ok: false, error: `the JSON does not match the schema: ${describeZodIssues(r.error.issues)}` };
  return { ok: true, value: r.data };
}

function stripFence(s: string): string {
  const m = /^```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```$/.exec(s);
  return m ? m[1]!.trim() : s;
}

/** The user turn that sends a failed reply back with what was wrong with it. */
export function repairPrompt(error: string): string {
  return (
    `Your previous reply could not be used: ${error}. ` +
    'Reply again with only a JSON object that matches the required schema, nothing else.'
  );
}

/** The instruction added in plain JSON mode (`json_object`), where the server does not see the schema itself. */
export function jsonModeInstruction(rs: ResponseSchema): string {
  return `Reply with a single JSON object (no prose, no code fence) that matches this JSON Schema:\n${JSON.stringify(rs.schema)}`;
}
