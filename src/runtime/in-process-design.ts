import vm from 'node:vm';
import type { MemoryDesign } from '../../sandbox/contract.ts';
import { DESIGN_GLOBAL } from '../design/compile.ts';
import type { CompiledProgram, SandboxLimits } from '../isolate/sandbox-api.ts';

/**
 * The isolate prelude's determinism, for a vm context: the same mulberry32 Math.random from the same seed and the
 * same fixed clock, so a design that draws random numbers or reads the date behaves as it did in evaluation.
 */
const DETERMINISM_JS = String.raw`(function (seed0, NOW) {
  var seed = seed0 >>> 0;
  Math.random = function random() {
    seed = (seed + 0x6D2B79F5) >>> 0;
    var t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  var RealDate = Date;
  function FixedDate() {
    if (new.target === undefined) return new RealDate(NOW).toString();
    var list = Array.prototype.slice.call(arguments);
    return Reflect.construct(RealDate, list.length === 0 ? [NOW] : list, new.target);
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = function now() { return NOW; };
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'Date', { value: FixedDate, writable: true, configurable: true });
})`;

/**
 * Loads a compiled design into a fresh `node:vm` context of this process and returns its default export. A fresh
 * context per memory build keeps a design's module-level state from leaking between builds, as a fresh isolate
 * does. TRUSTED CODE ONLY: vm is not a security boundary and there are no memory or time limits.
 * Throws what the design's top level throws, or an Error when the default export is not a design.
 */
export function loadDesignInProcess(program: CompiledProgram, limits: Pick<SandboxLimits, 'seed' | 'now'>): MemoryDesign {
  const context = vm.createContext({}, { name: `memsteer design ${program.fileName}` });
  const seedClock = vm.runInContext(DETERMINISM_JS, context, { filename: 'memsteer:determinism.js' }) as (
    seed: number,
    now: number,
  ) => void;
  seedClock(limits.seed, limits.now);
  vm.runInContext(program.js, context, { filename: `design:${program.fileName}` });
  const mod = (context as Record<string, unknown>)[DESIGN_GLOBAL] as { default?: unknown } | undefined;
  const d = mod?.default as Partial<MemoryDesign> | undefined;
  if (!d || typeof d.store !== 'function' || typeof d.retrieve !== 'function' || typeof d.context !== 'function') {
    throw new Error('the default export must have store, retrieve and context functions');
  }
  return d as MemoryDesign;
}
