/**
 * The in-isolate half of the sandbox, as plain JavaScript that the runner compiles once per isolate,
 * before the design's script. It
 *  - captures the built-ins it relies on before any design code runs (a design may tamper with
 *    prototypes; that only hurts the design itself, never the protocol with the host);
 *  - seeds Math.random (mulberry32), fixes Date / Date.now, removes WebAssembly and SharedArrayBuffer
 *    (their memory is not reliably covered by the isolate's memoryLimit);
 *  - wraps the host callbacks the runner installed as `__h_*` globals into the contract's `Tools`,
 *    then deletes those globals so designs only reach the host through `tools`;
 *  - keeps the Memory inside the isolate and validates every stage result before it crosses.
 *
 * Protocol: the script's completion value is `{ load, call, awaitPending }`. `call(op, argJson)` returns a
 * string whose first character says what it is:
 *   'R' + JSON   the validated result
 *   'P'          the stage returned a promise; `awaitPending()` resolves to one of the other strings
 *   'E' + text   the design threw (text describes the thrown value)
 *   'M' + text   the design returned something malformed (or too large)
 * Ops: 'store' (records), 'add' ({records, full}: new records; only when `load` reported `add: true`; its result
 * carries the provenance delta too), 'retrieve', 'context', 'unitsDelta' (only the units new or changed
 * since the last delta after a store, so that a memory grown by 'add' does not re-send its whole provenance after
 * each add), and 'texts' ({ids, from, maxChars}: one page of the named units' texts, which the
 * host reads for the units a delta reports as new or changed).
 * Strings are the only thing that crosses, so the host never copies an object graph it did not ask for
 * and caps sizes before parsing.
 *
 * The source avoids template literals so it can live in a String.raw literal.
 */
export const PRELUDE_JS = String.raw`(function () {
'use strict';
var G = globalThis;
var cfg = G.__h_config;
var h = {
  bm25Index: G.__h_bm25Index, bm25Add: G.__h_bm25Add, bm25Search: G.__h_bm25Search,
  tokenize: G.__h_tokenize, stem: G.__h_stem, isStopword: G.__h_isStopword, terms: G.__h_terms,
  countTokens: G.__h_countTokens, log: G.__h_log, embed: G.__h_embed, llm: G.__h_llm, dates: G.__h_dates
};
var hostNames = ['__h_config', '__h_bm25Index', '__h_bm25Add', '__h_bm25Search', '__h_tokenize', '__h_stem',
  '__h_isStopword', '__h_terms', '__h_countTokens', '__h_log', '__h_embed', '__h_llm', '__h_dates'];
for (var i = 0; i < hostNames.length; i++) delete G[hostNames[i]];

// Built-ins captured before design code can replace them.
var ReflectApply = Reflect.apply;
var JSONparse = JSON.parse;
var JSONstringify = JSON.stringify;
var ArrayIsArray = Array.isArray;
var NumberIsFinite = Number.isFinite;
var ObjectFreeze = Object.freeze;
var ObjectCreate = Object.create;
var ObjectDefineProperty = Object.defineProperty;
var ObjectGetPrototypeOf = Object.getPrototypeOf;
var ObjectPrototype = Object.prototype;
var StringC = String;
var StringSlice = String.prototype.slice;
var ArrayPush = Array.prototype.push;
var ArraySlice = Array.prototype.slice;
var MapForEach = Map.prototype.forEach;
var MapC = Map;
var MapGet = Map.prototype.get;
var MapSet = Map.prototype.set;
var MapHas = Map.prototype.has;
var MapClear = Map.prototype.clear;
var SetC = Set;
var SetAdd = Set.prototype.add;
var SetHas = Set.prototype.has;
var ErrorC = Error;
var TypeErrorC = TypeError;
var RangeErrorC = RangeError;
var PromiseC = Promise;
var PromiseResolve = Promise.resolve;
var PromiseThen = Promise.prototype.then;
var RealDate = Date;
var MAX_TEXT = 10000000;
var MAX_RESULT = cfg.maxResultChars;

function slice(s, a, b) { return ReflectApply(StringSlice, s, [a, b]); }
function mapGet(m, k) { return ReflectApply(MapGet, m, [k]); }
function mapSet(m, k, v) { ReflectApply(MapSet, m, [k, v]); }
function mapHas(m, k) { return ReflectApply(MapHas, m, [k]); }
function setAdd(s, v) { ReflectApply(SetAdd, s, [v]); }
function setHas(s, v) { return ReflectApply(SetHas, s, [v]); }
function push(a, v) { ReflectApply(ArrayPush, a, [v]); }
function str(v, what) {
  var s = typeof v === 'string' ? v : StringC(v);
  if (s.length > MAX_TEXT) throw new RangeErrorC(what + ': text of ' + s.length + ' chars is over the ' + MAX_TEXT + ' limit');
  return s;
}

// ── Determinism: seeded Math.random, fixed clock, no out-of-heap memory. ──
var seed = cfg.seed >>> 0;
Math.random = function random() {
  seed = (seed + 0x6D2B79F5) >>> 0;
  var t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
var NOW = cfg.now;
function FixedDate() {
  var args = arguments;
  if (new.target === undefined) return new RealDate(NOW).toString();
  var list = [];
  for (var j = 0; j < args.length; j++) list[j] = args[j];
  return Reflect.construct(RealDate, list.length === 0 ? [NOW] : list, new.target);
}
FixedDate.prototype = RealDate.prototype;
FixedDate.now = function now() { return NOW; };
FixedDate.parse = RealDate.parse;
FixedDate.UTC = RealDate.UTC;
ObjectDefineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
ObjectDefineProperty(G, 'Date', { value: FixedDate, writable: true, configurable: true });
delete G.WebAssembly;
delete G.SharedArrayBuffer;
delete G.Atomics;

// ── Tools: the contract's capabilities over the host callbacks. ──
// The pure text tools answer a text they have seen from the isolate's own memo: a design that rescores its
// candidates calls tools.text.terms on the same unit texts for every question (over 500 calls a question), and each
// call crossing to the host costs more than the analysis. Results are the host's, copied per call so a design that
// changes one cannot change the next. The memo holds at most MEMO_CHARS characters of input across the tools (it
// is emptied when full), so it stays a small share of the isolate's memory limit. Answers from the memo are counted
// here and handed to the host after each stage (op 'hits'), so toolCalls counts the design's calls whichever
// sandbox served them before.
var MEMO_CHARS = 2000000;
var memoChars = 0;
var memos = [];
var memoHits = ObjectCreate(null);
function memoized(name, fn, copy) {
  var memo = new MapC();
  push(memos, memo);
  return function (text) {
    if (mapHas(memo, text)) {
      memoHits[name] = (memoHits[name] || 0) + 1;
      var hit = mapGet(memo, text);
      return copy ? ReflectApply(ArraySlice, hit, []) : hit;
    }
    var got = fn(text);
    if (memoChars + text.length > MEMO_CHARS) {
      for (var m = 0; m < memos.length; m++) ReflectApply(MapClear, memos[m], []);
      memoChars = 0;
    }
    memoChars += text.length;
    mapSet(memo, text, got);
    return copy ? ReflectApply(ArraySlice, got, []) : got;
  };
}
var termsOf = memoized('text.terms', function (t) { return h.terms(t); }, true);
var tokensOf = memoized('text.tokenize', function (t) { return h.tokenize(t); }, true);
var stemOf = memoized('text.stem', function (t) { return h.stem(t); }, false);
var stopwordOf = memoized('text.isStopword', function (t) { return h.isStopword(t); }, false);
var tokenCountOf = memoized('countTokens', function (t) { return h.countTokens(t); }, false);
function plainDocs(docs, what) {
  what = what || 'tools.bm25.index';
  if (!ArrayIsArray(docs)) throw new TypeErrorC(what + ': docs must be an array of {id, text}');
  var out = [];
  var total = 0;
  for (var j = 0; j < docs.length; j++) {
    var d = docs[j];
    if (d === null || typeof d !== 'object') throw new TypeErrorC(what + ': docs[' + j + '] is not an object');
    var id = StringC(d.id);
    var text = typeof d.text === 'string' ? d.text : StringC(d.text);
    total += text.length;
    if (total > 50000000) throw new RangeErrorC(what + ': over 50M chars of text');
    out[j] = { id: id, text: text };
  }
  return out;
}
function plainBm25Options(o) {
  if (o === undefined || o === null) return {};
  var r = {};
  if (o.stem !== undefined) r.stem = !!o.stem;
  if (o.stopwords !== undefined) r.stopwords = !!o.stopwords;
  if (o.k1 !== undefined) r.k1 = +o.k1;
  if (o.b !== undefined) r.b = +o.b;
  return r;
}
function makeIndex(handle, size) {
  return ObjectFreeze({
    size: size,
    search: function search(query, k) {
      return h.bm25Search(handle, str(query, 'bm25.search'), k === undefined ? 10 : +k);
    },
    add: function add(docs) {
      var r = h.bm25Add(handle, plainDocs(docs, 'tools.bm25.add'));
      return makeIndex(r.handle, r.size);
    }
  });
}
function plainStrings(list, what) {
  if (!ArrayIsArray(list)) throw new TypeErrorC(what + ': expected an array of strings');
  var out = [];
  for (var j = 0; j < list.length; j++) out[j] = str(list[j], what);
  return out;
}
function plainMessages(messages) {
  if (typeof messages === 'string') return str(messages, 'llm.complete');
  if (!ArrayIsArray(messages)) throw new TypeErrorC('tools.llm.complete: messages must be a string or {role, content}[]');
  var out = [];
  for (var j = 0; j < messages.length; j++) {
    var m = messages[j];
    out[j] = { role: StringC(m && m.role), content: str(m && m.content, 'llm.complete') };
  }
  return out;
}
var tools = ObjectFreeze({
  bm25: ObjectFreeze({
    index: function index(docs, options) {
      var r = h.bm25Index(plainDocs(docs), plainBm25Options(options));
      return makeIndex(r.handle, r.size);
    }
  }),
  text: ObjectFreeze({
    tokenize: function tokenize(text) { return tokensOf(str(text, 'text.tokenize')); },
    stem: function stem(word) { return stemOf(str(word, 'text.stem')); },
    isStopword: function isStopword(word) { return stopwordOf(str(word, 'text.isStopword')); },
    terms: function terms(text) { return termsOf(str(text, 'text.terms')); },
    dates: function dates(text, reference) {
      return h.dates(str(text, 'text.dates'), reference === undefined ? undefined : str(reference, 'text.dates'));
    }
  }),
  embed: ObjectFreeze({
    dim: cfg.embedDim,
    model: cfg.embedModel,
    embed: function embed(texts) {
      return h.embed.apply(undefined, [plainStrings(texts, 'embed')], { arguments: { copy: true }, result: { promise: true, copy: true } });
    }
  }),
  llm: ObjectFreeze({
    available: cfg.llmAvailable,
    complete: function complete(messages, options) {
      var o = {};
      if (options && options.maxTokens !== undefined) o.maxTokens = +options.maxTokens;
      if (options && options.temperature !== undefined) o.temperature = +options.temperature;
      return h.llm.apply(undefined, [plainMessages(messages), o], { arguments: { copy: true }, result: { promise: true, copy: true } });
    }
  }),
  countTokens: function countTokens(text) { return tokenCountOf(str(text, 'countTokens')); },
  log: function log(message) {
    var s = typeof message === 'string' ? message : StringC(message);
    h.log(s.length > 2000 ? slice(s, 0, 2000) : s);
  }
});

// ── Stage results: validated here, where the memory is. ──
var design = null;
var memory = null;
var recordIds = null;
var unitIndex = null;
var pending = null;
/** Per unit id, the JSON of its provenance as last sent by 'unitsDelta' (null: send everything next time). */
var reported = null;
var reportedIds = null;
/** Whether memory was validated (and unitIndex built) since the last stage call that could change it. */
var validated = false;

function Malformed(message) { this.message = message; }

function describe(e) {
  try {
    if (e instanceof Malformed) return e.message;
    if (e instanceof ErrorC) {
      var name = typeof e.name === 'string' ? e.name : 'Error';
      var msg = typeof e.message === 'string' ? e.message : '';
      return slice(name + ': ' + msg, 0, 2000);
    }
    if (e === null) return 'threw null';
    if (e === undefined) return 'threw undefined';
    if (typeof e === 'object') {
      var json;
      try { json = JSONstringify(e); } catch (x) { json = undefined; }
      return 'threw a non-Error object' + (typeof json === 'string' ? ': ' + slice(json, 0, 500) : '');
    }
    return 'threw a non-Error ' + typeof e + ': ' + slice(StringC(e), 0, 500);
  } catch (x) {
    return 'threw a value that cannot be described';
  }
}

function isObject(v) { return v !== null && typeof v === 'object'; }

function indexUnits(units, what) {
  return indexUnitsInto(new MapC(), units, 0, what);
}

// Validates units[from..] into index (which holds the units before 'from').
function indexUnitsInto(index, units, from, what) {
  for (var j = from; j < units.length; j++) {
    var u = units[j];
    var at = what + '.units[' + j + ']';
    if (!isObject(u)) throw new Malformed(at + ' is not an object');
    if (typeof u.id !== 'string' || u.id.length === 0) throw new Malformed(at + '.id must be a non-empty string');
    if (typeof u.text !== 'string') throw new Malformed(at + '.text must be a string (unit ' + u.id + ')');
    if (!ArrayIsArray(u.sources)) throw new Malformed(at + '.sources must be an array of record ids (unit ' + u.id + ')');
    for (var k = 0; k < u.sources.length; k++) {
      var s = u.sources[k];
      if (typeof s !== 'string' || !setHas(recordIds, s)) {
        throw new Malformed(at + '.sources[' + k + '] = ' + slice(StringC(JSONstringify(s)), 0, 100) +
          ' is not the id of a stored record (unit ' + u.id + ')');
      }
    }
    if (u.time !== undefined && typeof u.time !== 'string') throw new Malformed(at + '.time must be a string when set (unit ' + u.id + ')');
    if (u.meta !== undefined && !isObject(u.meta)) throw new Malformed(at + '.meta must be an object when set (unit ' + u.id + ')');
    if (mapHas(index, u.id)) throw new Malformed(what + ': duplicate unit id ' + slice(u.id, 0, 100));
    mapSet(index, u.id, u);
  }
  return index;
}

// ── Positional snapshots: what each unit looked like when last validated / reported. A memory that only grew
// (the earlier units untouched, new ones after them) is then checked and reported in O(new units), so a memory
// grown one record at a time does not pay for its whole size at every add. ──
function newSnap() { return { n: 0, units: [], ids: [], sources: [], copies: [], textLen: [], time: [], chars: 0 }; }
function unchangedPrefix(snap, units) {
  if (snap === null || units.length < snap.n) return false;
  // Locals, and no calls in the loop: this runs over the whole memory at every add, so it must stay a tight loop.
  var n = snap.n, su = snap.units, ids = snap.ids, ss = snap.sources, copies = snap.copies, lens = snap.textLen, times = snap.time;
  for (var j = 0; j < n; j++) {
    var u = units[j];
    if (u !== su[j]) return false;
    var sources = u.sources;
    // The same array object as when validated, so still an array; its elements may have changed in place.
    if (sources !== ss[j] || u.id !== ids[j] || u.time !== times[j]) return false;
    var text = u.text;
    if (typeof text !== 'string' || text.length !== lens[j]) return false;
    var c = copies[j];
    var m = c.length;
    if (sources.length !== m) return false;
    for (var k = 0; k < m; k++) if (sources[k] !== c[k]) return false;
  }
  return true;
}
// Records units[snap.n..] (already validated) in the snapshot.
function extendSnap(snap, units) {
  for (var j = snap.n; j < units.length; j++) {
    var u = units[j];
    snap.units[j] = u;
    snap.ids[j] = u.id;
    snap.sources[j] = u.sources;
    snap.copies[j] = ReflectApply(ArraySlice, u.sources, [0]);
    snap.textLen[j] = u.text.length;
    snap.time[j] = u.time;
    snap.chars += u.text.length;
  }
  snap.n = units.length;
}
var validSnap = null;
/** The unit index of the memory an add grows (held aside while the design runs). */
var growIndex = null;
/** After an add that only appended units: how many there were before it (else -1). */
var grewFrom = -1;
/**
 * True after an add that did not compare the units it found to their snapshot: comparing is O(memory), and an app
 * adding one record at a time would pay it at every add. It is owed before anything reads the memory (settle).
 */
var prefixOwed = false;

/** Pays the comparison an add left owed: units the design changed in place are validated and indexed again. */
function settle() {
  if (!prefixOwed) return;
  prefixOwed = false;
  if (memory === null || unchangedPrefix(validSnap, memory.units)) return;
  validSnap = null;
  try {
    unitIndex = indexUnits(memory.units, 'memory');
  } catch (e) {
    // As after a failed add: the memory is in doubt, and no stage may read it until the next store.
    memory = null;
    if (e instanceof Malformed) throw new Malformed('after add: ' + e.message);
    throw e;
  }
  validSnap = newSnap();
  extendSnap(validSnap, memory.units);
}

function takeMemory(m, op) {
  if (!isObject(m) || !ArrayIsArray(m.units)) throw new Malformed(op + ' must return a Memory: { units: MemoryUnit[], state? }');
  var base = growIndex;
  growIndex = null;
  grewFrom = -1;
  var n = validSnap === null ? -1 : validSnap.n;
  // An add that kept the units it found in place (the same objects up to the last one) is taken as appending; whether
  // it changed any of them inside is checked once before the memory is next read (settle), not at every add.
  var appended = op === 'add' && base !== null && n >= 0 && m.units.length >= n && (n === 0 || m.units[n - 1] === validSnap.units[n - 1]);
  if (appended) {
    unitIndex = indexUnitsInto(base, m.units, n, 'memory');
    grewFrom = n;
    prefixOwed = true;
  } else {
    prefixOwed = false;
    validSnap = null;
    unitIndex = indexUnits(m.units, 'memory');
    validSnap = newSnap();
  }
  extendSnap(validSnap, m.units);
  memory = m;
  validated = true;
  return JSONstringify({ units: m.units.length, textChars: validSnap.chars });
}

function knownUnit(id) {
  if (typeof id !== 'string') return false;
  if (mapHas(unitIndex, id)) return true;
  // The design may have grown memory.units after store; re-index once before calling the id unknown.
  validSnap = null;
  unitIndex = indexUnits(memory.units, 'memory');
  return mapHas(unitIndex, id);
}

function takeHits(hits) {
  if (!ArrayIsArray(hits)) throw new Malformed('retrieve must return Hit[] ({unit, score}[])');
  if (hits.length > MAX_RESULT / 16) throw new Malformed('retrieve returned ' + hits.length + ' hits, over the result size limit');
  var out = [];
  for (var j = 0; j < hits.length; j++) {
    var x = hits[j];
    if (!isObject(x)) throw new Malformed('hits[' + j + '] is not an object');
    if (!knownUnit(x.unit)) {
      throw new Malformed('hits[' + j + '].unit = ' + slice(StringC(JSONstringify(x.unit)), 0, 100) + ' is not a unit id in memory');
    }
    if (typeof x.score !== 'number' || !NumberIsFinite(x.score)) {
      throw new Malformed('hits[' + j + '].score must be a finite number (unit ' + x.unit + ')');
    }
    out[j] = { unit: x.unit, score: x.score };
  }
  return JSONstringify(out);
}

function takeContext(c) {
  if (!isObject(c)) throw new Malformed('context must return { text, units }');
  if (typeof c.text !== 'string') throw new Malformed('context.text must be a string');
  if (c.text.length > MAX_RESULT) throw new Malformed('context.text is ' + c.text.length + ' chars, over the ' + MAX_RESULT + ' limit');
  if (!ArrayIsArray(c.units)) throw new Malformed('context.units must be an array of unit ids');
  var units = [];
  for (var j = 0; j < c.units.length; j++) {
    if (!knownUnit(c.units[j])) {
      throw new Malformed('context.units[' + j + '] = ' + slice(StringC(JSONstringify(c.units[j])), 0, 100) +
        ' is not a unit id in memory');
    }
    units[j] = c.units[j];
  }
  return JSONstringify({ text: c.text, units: units });
}

function unitReport(u) {
  var r = { id: u.id, sources: u.sources, textLength: u.text.length };
  if (u.time !== undefined) r.time = u.time;
  return r;
}

// { full, units: [report of each new or changed unit], removed: [ids], order: [every id] | null }. 'order' is sent
// only when the units are not the earlier ones (in their order) followed by new ones. A unit counts as unchanged
// when its id, sources (element by element), time and text length are what was last sent: comparing costs far
// less than serialising, so a memory grown one record at a time does not pay for its whole size at every add.
function sameReport(r, u) {
  if (r.textLength !== u.text.length || r.time !== u.time || r.sources.length !== u.sources.length) return false;
  // A text sent inline is compared too (usually the very same string, so this costs nothing).
  if (r.text !== undefined && r.text !== u.text) return false;
  for (var k = 0; k < r.sources.length; k++) if (r.sources[k] !== u.sources[k]) return false;
  return true;
}

var reportSnap = null;

// Texts ride along in a delta while they fit one text page (MAX_RESULT / 8 characters, as 'texts' pages): a memory
// grown by a few records then costs one crossing per add; the host reads the rest with 'texts'.
function inlineText(r, u, budget) {
  if (u.text.length + 8 > budget.left) return;
  r.text = u.text;
  budget.left -= u.text.length + 8;
}

function unitsDelta() {
  if (memory === null) throw new Malformed('no memory yet: store has not succeeded');
  var budget = { left: MAX_RESULT / 8 };
  if (!validated) {
    validSnap = null;
    unitIndex = indexUnits(memory.units, 'memory');
  }
  var units = memory.units;
  // Right after an add that only appended, the units before it are the ones takeMemory just compared: when the last
  // report covered exactly those, there is no need to compare them again.
  var appended = grewFrom >= 0 && reportSnap !== null && reportSnap.n === grewFrom && validated &&
    (grewFrom === 0 || reportSnap.units[grewFrom - 1] === units[grewFrom - 1]);
  grewFrom = -1;
  if (reported !== null && (appended || unchangedPrefix(reportSnap, units))) {
    var fresh = [];
    for (var f = reportSnap.n; f < units.length; f++) {
      var fr = unitReport(units[f]);
      fr.sources = ReflectApply(ArraySlice, units[f].sources, [0]);
      inlineText(fr, units[f], budget);
      mapSet(reported, units[f].id, fr);
      push(reportedIds, units[f].id);
      push(fresh, fr);
    }
    extendSnap(reportSnap, units);
    return JSONstringify({ full: false, units: fresh, removed: [], order: null });
  }
  var full = reported === null;
  var next = new MapC();
  var changed = [];
  var ids = [];
  var inOrder = true;
  var previous = reported;
  var previousIds = reportedIds;
  for (var j = 0; j < memory.units.length; j++) {
    var u = memory.units[j];
    var before = full ? undefined : mapGet(previous, u.id);
    ids[j] = u.id;
    if (!full && j < previousIds.length && previousIds[j] !== u.id) inOrder = false;
    if (before !== undefined && sameReport(before, u)) {
      mapSet(next, u.id, before);
      continue;
    }
    var r = unitReport(u);
    // A copy: the design may change its own sources array in place later.
    r.sources = ReflectApply(ArraySlice, u.sources, [0]);
    inlineText(r, u, budget);
    mapSet(next, u.id, r);
    push(changed, r);
  }
  if (!full && ids.length < previousIds.length) inOrder = false;
  var removed = [];
  if (!full) {
    ReflectApply(MapForEach, previous, [function (_v, id) { if (!mapHas(next, id)) push(removed, id); }]);
  }
  reported = next;
  reportedIds = ids;
  reportSnap = newSnap();
  extendSnap(reportSnap, units);
  return JSONstringify({ full: full, units: changed, removed: removed, order: full || (inOrder && removed.length === 0) ? null : ids });
}

// Texts of the named units, one page from 'from' until about 'maxChars' characters (a longer text arrives cut to
// 'maxChars'; sources past the cut cannot be verified); 'next' is null at the end. The host reads the texts of new or
// changed units to verify their sources against the records (see MemoryUnit.sources) and to credit delivery.
function unitTextsPage(arg) {
  if (memory === null) throw new Malformed('no memory yet: store has not succeeded');
  var ids = arg.ids;
  var maxChars = arg.maxChars;
  var out = [];
  var chars = 0;
  var j = arg.from;
  for (; j < ids.length; j++) {
    var t = knownUnit(ids[j]) ? mapGet(unitIndex, ids[j]).text : '';
    if (t.length > maxChars) t = slice(t, 0, maxChars);
    if (out.length > 0 && chars + t.length + 8 > maxChars) break;
    chars += t.length + 8;
    push(out, t);
  }
  return JSONstringify({ texts: out, next: j < ids.length ? j : null });
}

function encode(json) {
  if (typeof json !== 'string') return 'Mresult is not serialisable';
  if (json.length > MAX_RESULT) return 'Mresult is ' + json.length + ' chars of JSON, over the ' + MAX_RESULT + ' limit';
  return 'R' + json;
}
function fail(e) { return (e instanceof Malformed ? 'M' : 'E') + describe(e); }

function finish(op, value) {
  try {
    if (op === 'store') return encode(takeMemory(value, op));
    if (op === 'add') {
      // The provenance delta rides along: an add is always followed by the host asking for it.
      var summary = takeMemory(value, op);
      var owed = prefixOwed ? ',"unchecked":true' : '';
      return encode(slice(summary, 0, summary.length - 1) + owed + ',"delta":' + unitsDelta() + '}');
    }
    if (op === 'retrieve') return encode(takeHits(value));
    return encode(takeContext(value));
  } catch (e) {
    return e instanceof Malformed ? fail(e) : 'M' + describe(e);
  }
}

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

function call(op, argJson) {
  // The memo's answers since the last stage, for the host's meter (it asks after each stage has settled).
  if (op === 'hits') {
    var hits = memoHits;
    memoHits = ObjectCreate(null);
    return 'R' + JSONstringify(hits);
  }
  pending = null;
  try {
    if (design === null) return 'Mthe design is not loaded';
    // Reading the memory pays what the last adds owe first ('texts' only reads units an add just reported).
    if (op === 'unitsDelta' || op === 'retrieve' || op === 'context') settle();
    if (op === 'unitsDelta') {
      // The host lost track (a failed reply): start over with every unit.
      if (argJson === 'full') reported = null;
      return encode(unitsDelta());
    }
    if (op === 'texts') return encode(unitTextsPage(JSONparse(argJson)));
    var arg = JSONparse(argJson);
    var r;
    validated = false;
    grewFrom = -1;
    if (op === 'store') {
      var ids = new SetC();
      for (var j = 0; j < arg.length; j++) setAdd(ids, arg[j].id);
      recordIds = ids;
      memory = null;
      prefixOwed = false;
      unitIndex = null;
      reported = null;
      validSnap = null;
      r = ReflectApply(design.store, design, [arg, tools]);
    } else if (op === 'add') {
      if (typeof design.add !== 'function') return 'Mthe design has no add stage';
      if (memory === null) return 'Mno memory yet: store has not succeeded';
      var grown = memory;
      // { records, full }: full when the host lost track of the provenance reported so far.
      if (arg.full) reported = null;
      arg = arg.records;
      for (var a = 0; a < arg.length; a++) {
        if (setHas(recordIds, arg[a].id)) return 'Madd: record ' + slice(StringC(arg[a].id), 0, 100) + ' is already stored';
      }
      for (var a2 = 0; a2 < arg.length; a2++) setAdd(recordIds, arg[a2].id);
      // Until add succeeds the memory is whatever the design left half-changed: no stage may read it.
      memory = null;
      growIndex = unitIndex;
      unitIndex = null;
      r = ReflectApply(design.add, design, [grown, arg, tools]);
    } else {
      if (memory === null) return 'Mno memory yet: store has not succeeded';
      if (op === 'retrieve') r = ReflectApply(design.retrieve, design, [arg.q, memory, tools]);
      else r = ReflectApply(design.context, design, [arg.q, arg.hits, memory, tools, arg.budget]);
    }
    if (isThenable(r)) {
      pending = ReflectApply(PromiseThen, ReflectApply(PromiseResolve, PromiseC, [r]), [
        function (v) { return finish(op, v); },
        function (e) { return fail(e); }
      ]);
      return 'P';
    }
    return finish(op, r);
  } catch (e) {
    return fail(e);
  }
}

function awaitPending() {
  return pending === null ? 'Mnothing is pending' : pending;
}

function load() {
  try {
    var mod = G.__memsteerDesign;
    // The compiled script declares it with 'var' (not deletable); clearing it is enough.
    G.__memsteerDesign = undefined;
    var d = isObject(mod) ? mod.default : undefined;
    if (!isObject(d) && typeof d !== 'function') return 'Mthe design has no default export object';
    if (typeof d.store !== 'function' || typeof d.retrieve !== 'function' || typeof d.context !== 'function') {
      return 'Mthe default export must have store, retrieve and context functions';
    }
    if (d.add !== undefined && typeof d.add !== 'function') return 'Mthe default export\'s add must be a function when set';
    design = d;
    return typeof d.add === 'function' ? 'R{"add":true}' : 'R{"add":false}';
  } catch (e) {
    return fail(e);
  }
}

return { load: load, call: call, awaitPending: awaitPending };
})()`;
