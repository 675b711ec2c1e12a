export type { AcceptanceDecision, AcceptanceRule, ParentSelector, ScoredProgram, SearchProgress, StopCondition } from './types.ts';
export { greedySelector, softmaxSelector, paretoSelector, paretoFront, parentSelectorFromSpec } from './parent-selection.ts';
export type { SelectorContext } from './parent-selection.ts';
export { mapElitesSelector, eliteGrid, behaviour, type MapElitesOptions, type Niche } from './map-elites.ts';
export { strictlyBetter, bootstrapAcceptance, acceptanceFromSpec } from './acceptance.ts';
export { pairedBootstrap, type PairedBootstrapResult } from './bootstrap.ts';
export { maxIterations, maxProposals, tokenBudget, dollarBudget, wallTime, noImprovement, anyOf, allOf } from './stopping.ts';
