/**
 * Fixed prompts live in their own Markdown files (src/scoring/prompts/*.md) so a change is a visible diff with
 * a version bump. Format: a first line `<!-- version: name@N -->`, optional `<!-- … -->` comment lines, then
 * `## system` and `## user` sections whose text may hold `{{placeholders}}`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.ts';

export interface PromptTemplate {
  /** The version line's value, e.g. `answerer@1`; part of cache keys. */
  version: string;
  system: string;
  user: string;
}

/** Parses a prompt file's text; `file` is only used in error messages. */
export function parsePromptFile(text: string, file = '(prompt)'): PromptTemplate {
  const version = /^<!--\s*version:\s*([^\s>]+)\s*-->/.exec(text.trimStart())?.[1];
  if (!version) throw new ConfigError('prompt-version', `${file}: the first line must be <!-- version: name@N -->; add one`, { file });
  const sections = new Map<string, string>();
  let current: string | null = null;
  const lines: string[] = [];
  const flush = () => {
    if (current) sections.set(current, lines.join('\n').trim());
    lines.length = 0;
  };
  for (const line of text.split('\n')) {
    const h = /^##\s+(system|user)\s*$/.exec(line);
    if (h) {
      flush();
      current = h[1]!;
    } else if (current) lines.push(line);
  }
  flush();
  const system = sections.get('system');
  const user = sections.get('user');
  if (system === undefined || user === undefined) {
    throw new ConfigError('prompt-sections', `${file}: needs a "## system" and a "## user" section`, { file });
  }
  return { version, system, user };
}

/** Loads `<dir>/<name>.md`; `dir` defaults to the prompts folder next to this module. */
export function loadPrompt(name: string, dir: URL = new URL('./prompts/', import.meta.url)): PromptTemplate {
  const url = new URL(`${name}.md`, dir);
  const file = fileURLToPath(url);
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (err) {
    throw new ConfigError('prompt-missing', `cannot read prompt ${file}: ${(err as Error).message}`, { file, cause: err });
  }
  return parsePromptFile(text, file);
}

/** Fills `{{name}}` placeholders; an unknown placeholder is an error (a typo would otherwise reach the model). */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
    const v = values[key];
    if (v === undefined) throw new ConfigError('prompt-placeholder', `prompt placeholder {{${key}}} has no value`);
    return v;
  });
}
