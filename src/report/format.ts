/** Number formats shared by the report's tables and tree (fitness values are shares in [0, 1], shown as %). */

export function formatScore(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(1)}%`;
}

export function formatDelta(x: number): string {
  const pts = x * 100;
  return `${pts >= 0 ? '+' : '−'}${Math.abs(pts).toFixed(2)} pts`;
}

export function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatDollars(d: number | null): string {
  return d === null ? 'unknown' : `$${d.toFixed(d > 0 && d < 0.01 ? 4 : 2)}`;
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
