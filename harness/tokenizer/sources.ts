/** Where the tokenizer that built a run's prompts came from (recorded in every result). */
export const TOKENIZER_SOURCES = ['flag', 'gguf', 'server', 'hf_cache'] as const;
export type TokenizerSource = (typeof TOKENIZER_SOURCES)[number];
