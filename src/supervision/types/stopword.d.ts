// stopword ships no types; only the English list is used.
declare module 'stopword' {
  /** English stop words, lower case. */
  export const eng: readonly string[];
}
