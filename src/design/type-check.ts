import { readFileSync } from 'node:fs';
import { Project, ts } from 'ts-morph';
import type { CompileDiagnostic } from '../isolate/sandbox-api.ts';
import { isContractSpecifier } from './design-rules.ts';

/** Where the contract and the design live in the checker's in-memory file system. */
const CONTRACT_PATH = '/sandbox/contract.ts';
const DESIGN_PATH = '/design/design.ts';
const CHECK_PATH = '/design/__assignable.ts';
const CHECK_SOURCE = [
  `import type { MemoryDesign } from '${CONTRACT_PATH}';`,
  `import design from './design.ts';`,
  'export const __design: MemoryDesign = design;',
  '',
].join('\n');

/** The contract as designs see it; read once from sandbox/contract.ts next to this package. */
export const CONTRACT_SOURCE = readFileSync(new URL('../../sandbox/contract.ts', import.meta.url), 'utf8');

let project: Project | undefined;

/**
 * A warm ts-morph Project (creating one and loading the lib files costs hundreds of ms; later checks
 * reuse the parsed lib and contract). Designs get ES2023 without DOM or Node types: the isolate has
 * neither, so `console`, `setTimeout` or `process` are type errors rather than runtime surprises.
 */
function getProject(): Project {
  if (project) return project;
  project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      types: [],
      skipLibCheck: true,
      isolatedModules: true,
    },
    resolutionHost: (moduleResolutionHost, getCompilerOptions) => ({
      resolveModuleNames: (moduleNames, containingFile) =>
        moduleNames.map((name) => {
          if (isContractSpecifier(name) || name === CONTRACT_PATH) {
            return { resolvedFileName: CONTRACT_PATH, extension: ts.Extension.Ts, isExternalLibraryImport: false };
          }
          return ts.resolveModuleName(name, containingFile, getCompilerOptions(), moduleResolutionHost).resolvedModule;
        }),
    }),
  });
  project.createSourceFile(CONTRACT_PATH, CONTRACT_SOURCE, { overwrite: true });
  project.createSourceFile(CHECK_PATH, CHECK_SOURCE, { overwrite: true });
  return project;
}

/** Creates the checker now so the first design does not pay for it. Returns the milliseconds it took. */
export function warmTypeChecker(): number {
  const t = performance.now();
  typeCheckDesign('import type { MemoryDesign } from "../sandbox/contract.ts";\nexport default {} as MemoryDesign;\n');
  return performance.now() - t;
}

/**
 * Type errors of a design, and whether its default export is assignable to MemoryDesign. Errors in the
 * assignability probe are reported at the design's `export default`.
 */
export function typeCheckDesign(source: string): CompileDiagnostic[] {
  const p = getProject();
  const design = p.createSourceFile(DESIGN_PATH, source, { overwrite: true });
  const check = p.getSourceFileOrThrow(CHECK_PATH);
  const out: CompileDiagnostic[] = [];
  for (const d of design.getPreEmitDiagnostics()) {
    if (d.getCategory() !== ts.DiagnosticCategory.Error) continue;
    const start = d.getStart() ?? 0;
    const { line, column } = design.getLineAndColumnAtPos(start);
    out.push({ line, column, message: withHint(flatten(d.getMessageText())), code: `TS${d.getCode()}` });
  }
  if (out.length > 0) return out;
  const probe = check.getPreEmitDiagnostics().filter((d) => d.getCategory() === ts.DiagnosticCategory.Error);
  if (probe.length > 0) {
    const exportDefault = design.getDefaultExportSymbol()?.getDeclarations()[0];
    const { line, column } = design.getLineAndColumnAtPos(exportDefault?.getStart() ?? 0);
    for (const d of probe) {
      out.push({
        line,
        column,
        message: `the default export is not a MemoryDesign: ${flatten(d.getMessageText())}`,
        code: `TS${d.getCode()}`,
      });
    }
  }
  return out;
}

/** Globals designs reach for that the isolate does not have, with what to use instead. */
const MISSING_GLOBALS: Record<string, string> = {
  console: 'the sandbox has no console; use tools.log',
  setTimeout: 'the sandbox has no timers',
  setInterval: 'the sandbox has no timers',
  process: 'the sandbox has no process; everything comes in through tools',
  fetch: 'the sandbox has no network; use tools.llm or tools.embed',
  require: 'the sandbox has no modules',
  Buffer: 'the sandbox has no Buffer; use strings or typed arrays',
};

function withHint(message: string): string {
  const name = /^Cannot find name '(\w+)'/.exec(message)?.[1];
  const hint = name === undefined ? undefined : MISSING_GLOBALS[name];
  return hint ? `Cannot find name '${name}': ${hint}.` : message;
}

function flatten(text: string | { getMessageText(): string; getNext(): unknown } | ts.DiagnosticMessageChain): string {
  if (typeof text === 'string') return text;
  const compilerObject = (text as { compilerObject?: ts.DiagnosticMessageChain }).compilerObject ?? (text as ts.DiagnosticMessageChain);
  return ts
    .flattenDiagnosticMessageText(compilerObject, '\n')
    .split('\n')
    .map((s) => s.trim())
    .join(' ');
}
