/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

/**
 * JSON for a `<script type="application/json">` block. Every `<` becomes `\u003c` so no archive text can close the
 * script element (`</script>`) or open a comment (`<!--`); U+2028/2029 are escaped for older JSON-in-JS readers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Makes code safe inside an inline `<script>`: a literal `</script` in it would end the element early. */
export function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1');
}
