/** The part of wink-bm25-text-search 3.1.2 memsteer uses (the package ships no types). */
declare module 'wink-bm25-text-search' {
  interface WinkBm25Engine {
    defineConfig(config: {
      fldWeights: Record<string, number>;
      bm25Params?: { k1?: number; b?: number; k?: number };
      ovFldNames?: string[];
    }): boolean;
    definePrepTasks(tasks: Array<(input: string) => string[]>, field?: string): number;
    addDoc(doc: Record<string, string>, id: string): number;
    consolidate(fp?: number): boolean;
    search(text: string, limit?: number): Array<[string, number]>;
    exportJSON(): string;
    importJSON(json: string): boolean;
    getTotalDocs(): number;
  }
  function bm25(): WinkBm25Engine;
  export default bm25;
}
