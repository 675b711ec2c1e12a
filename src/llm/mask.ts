/** What a secret is replaced with in relayed text. */
export const MASK = '***';

/** Shortest piece of a key that counts as leaking it (servers often echo a key cut short: `sk-abc…wxyz`). */
const MIN_PIECE = 8;

/**
 * Masks `secret` in text that came from outside (a server's error message, a trace, a child's stderr): the whole
 * key, and any run of key-like characters at least 8 long that is a piece of the key, since servers often echo it
 * shortened or wrapped in other text.
 */
export function maskSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4 || !text) return text;
  const whole = text.split(secret).join(MASK);
  if (secret.length < MIN_PIECE) return whole;
  return whole.replace(/[A-Za-z0-9_\-.+/=]{8,}/g, (run) => (secret.includes(run) ? MASK : maskPieces(run, secret)));
}

/** A run that holds a piece of the key among other characters (e.g. `key=sk-abcdefgh…`): mask just the piece. */
function maskPieces(run: string, secret: string): string {
  for (let len = Math.min(run.length, secret.length); len >= MIN_PIECE; len--) {
    for (let at = 0; at + len <= run.length; at++) {
      const piece = run.slice(at, at + len);
      if (secret.includes(piece)) return run.slice(0, at) + MASK + maskPieces(run.slice(at + len), secret);
    }
  }
  return run;
}
