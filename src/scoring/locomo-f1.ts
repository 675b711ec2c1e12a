/**
 * LoCoMo's official QA score, ported from snap-research/LoCoMo `task_eval/evaluation.py`
 * (`normalize_answer`, `f1_score`, `f1`, `eval_question_answering`).
 *
 * One known difference: the official scorer stems with NLTK's PorterStemmer (its default NLTK_EXTENSIONS mode);
 * we use the `stemmer` package (the original Porter algorithm). They agree on ordinary English words and differ
 * on a few irregular forms (e.g. "dying"), so scores can differ in the third decimal on rare questions.
 */
import { stemmer } from 'stemmer';
import { overlapF1 } from './metrics.ts';

// Python's string.punctuation: ASCII only, exactly as the official scorer strips it.
const ASCII_PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// The official regex is \b(a|an|the|and)\b with Python `regex` (Unicode word boundaries).
const ARTICLES_AND = /(?<![\p{L}\p{N}_])(?:a|an|the|and)(?![\p{L}\p{N}_])/gu;

/** LoCoMo's `normalize_answer`: drop commas, lower-case, strip ASCII punctuation, drop a/an/the/and, squeeze spaces. */
export function locomoNormalize(text: string): string {
  const s = text.replace(/,/g, '').toLowerCase().replace(ASCII_PUNCT, '');
  return s.replace(ARTICLES_AND, ' ').split(/\s+/).filter(Boolean).join(' ');
}

function stemmedTokens(text: string): string[] {
  const normalized = locomoNormalize(text);
  return normalized === '' ? [] : normalized.split(' ').map((w) => stemmer(w));
}

/** LoCoMo's `f1_score`: token F1 over Porter-stemmed normalised tokens; 0 when nothing overlaps. */
export function locomoTokenF1(prediction: string, groundTruth: string): number {
  return overlapF1(stemmedTokens(prediction), stemmedTokens(groundTruth));
}

/**
 * LoCoMo's multi-answer `f1`: gold and prediction split on ','; the mean over gold parts of the best F1 against
 * any prediction part.
 */
export function locomoMultiAnswerF1(prediction: string, groundTruth: string): number {
  const preds = prediction.split(',').map((s) => s.trim());
  const golds = groundTruth.split(',').map((s) => s.trim());
  let sum = 0;
  for (const g of golds) sum += Math.max(...preds.map((p) => locomoTokenF1(p, g)));
  return sum / golds.length;
}

/** True when the prediction declines in the words LoCoMo's adversarial scoring accepts. */
export function locomoAbstains(prediction: string): boolean {
  const s = prediction.toLowerCase();
  return s.includes('no information available') || s.includes('not mentioned');
}

/**
 * The official per-question score for LoCoMo category 1–5 (numeric or string code):
 * 1 multi-hop → multi-answer F1; 2 temporal, 4 single-hop → F1; 3 open-domain → F1 against the gold cut at its
 * first ';'; 5 adversarial → 1 iff the prediction says "no information available" or "not mentioned".
 * Throws on an unknown category, as the official scorer does.
 */
export function locomoScore(prediction: string, groundTruth: string, category: number | string): number {
  const cat = Number(category);
  switch (cat) {
    case 1:
      return locomoMultiAnswerF1(prediction, groundTruth);
    case 2:
    case 4:
      return locomoTokenF1(prediction, groundTruth);
    case 3:
      return locomoTokenF1(prediction, groundTruth.split(';')[0]!.trim());
    case 5:
      return locomoAbstains(prediction) ? 1 : 0;
    default:
      throw new RangeError(`LoCoMo category must be 1–5, got ${JSON.stringify(category)}`);
  }
}
