import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { MemsteerError } from '../errors.ts';

/** The charting library inlined into every report: Chart.js's UMD bundle (all chart types registered, global `Chart`). */
export interface ChartLibrary {
  name: string;
  version: string;
  code: string;
}

let cached: ChartLibrary | null = null;

/**
 * Reads Chart.js's UMD bundle from node_modules. The package's `exports` map does not expose `dist/chart.umd.min.js`,
 * so the file is found next to the resolved main entry. The source-map comment is dropped: the map is not inlined
 * and a dangling reference would make a browser's devtools try to fetch it.
 */
export function loadChartLibrary(): ChartLibrary {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  let main: string;
  try {
    main = require.resolve('chart.js');
  } catch (err) {
    throw new MemsteerError('E_REPORT_NO_CHARTJS', 'chart.js is not installed; run `npm ci` in the memsteer folder', { cause: err });
  }
  const dist = dirname(main);
  const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as { version: string };
  const code = readFileSync(join(dist, 'chart.umd.min.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  cached = { name: 'chart.js', version: pkg.version, code };
  return cached;
}
