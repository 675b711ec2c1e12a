export { renderReport, writeReport, type ReportOptions } from './report.ts';
export { buildReportData, OFFICIAL_TRACES_DIR, REPORT_CATEGORIES, type ReportDataOptions } from './report-data.ts';
export { ReportDataSchema, type ReportData } from './report-schema.ts';
export { escapeHtml, jsonForScript } from './html-escape.ts';
