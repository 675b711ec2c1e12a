import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.ts';

/** The generator's LLM roles, each with its own prompt file. */
export type PromptRole = 'planner' | 'questioner' | 'auditor' | 'reader';

export interface Prompt {
  role: PromptRole;
  /** From the file's first line `version: <role>@<n>`; recorded in the summary and the run fingerprint. */
  version: string;
  text: string;
}

const cache = new Map<PromptRole, Prompt>();

/** Reads `prompts/<role>.md` (next to this module). Its first line must be `version: <role>@<n>`. */
export function loadPrompt(role: PromptRole): Prompt {
  const hit = cache.get(role);
  if (hit) return hit;
  const url = new URL(`./prompts/${role}.md`, import.meta.url);
  const text = readFileSync(url, 'utf8');
  const m = /^version:\s*(\S+)\s*$/m.exec(text.split('\n', 1)[0] ?? '');
  if (!m || !m[1]!.startsWith(`${role}@`)) {
    throw new ConfigError('E_PROMPT_VERSION', `${url.pathname}:1: expected "version: ${role}@<n>" as the first line`, {
      file: url.pathname,
    });
  }
  const p: Prompt = { role, version: m[1]!, text };
  cache.set(role, p);
  return p;
}
