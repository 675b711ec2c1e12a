export {
  Category,
  DiagnosisObjective,
  DiagnosisSchema,
  FAILURE_CATEGORIES,
  QuestionDiagnosisSchema,
  diagnose,
  questionKey,
  summarizeDiagnosis,
  type DiagnoseOptions,
  type Diagnosis,
  type FailureCategory,
  type QuestionDiagnosis,
} from './diagnosis.ts';
export { provenanceFromMemories, recoverableFn, type Provenance } from './provenance.ts';
export {
  FailureCaseSchema,
  excerpt,
  sampleFailures,
  sampleRandomFailures,
  type FailureCase,
  type RecordLookup,
  type SampleOptions,
} from './sample.ts';
