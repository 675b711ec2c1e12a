// wordpos ships no types; these cover the lookups the lexical-gap rephraser makes.
declare module 'wordpos' {
  export interface WordPosPointer {
    /** `@` hypernym, `@i` instance hypernym, `~` hyponym, … */
    pointerSymbol: string;
    synsetOffset: string;
    pos: string;
    sourceTarget: string;
  }
  export interface WordPosSynset {
    synsetOffset: string;
    lexName: string;
    pos: string;
    lemma: string;
    synonyms: string[];
    ptrs: WordPosPointer[];
    def: string;
  }
  export default class WordPOS {
    constructor(options?: { profile?: boolean; stopwords?: boolean });
    lookup(word: string): Promise<WordPosSynset[]>;
    lookupNoun(word: string): Promise<WordPosSynset[]>;
    lookupVerb(word: string): Promise<WordPosSynset[]>;
    lookupAdjective(word: string): Promise<WordPosSynset[]>;
    seek(offset: string, pos: string): Promise<WordPosSynset>;
  }
}
