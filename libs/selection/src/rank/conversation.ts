import { SelectionError } from '../errors';
import type { RankingOptions, WeightedQuery } from '../index/search-query';
import { isStopWord, stem, words } from '../words/text';
import { MAX_PHRASE_WORDS } from '../words/vocabulary';
import type { Expansion, Vocabulary } from '../words/vocabulary';

/** What the ranking reads of a conversation. */
export interface Conversation {
  /** the user's own words, oldest turn first */
  userTurns: string[];
  /** tools the assistant already called, oldest first */
  toolCalls: string[];
}

export const MAX_MESSAGES = 200;
export const MAX_TEXT_CHARS = 20_000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of an OpenAI content (string or parts) or an Anthropic content (string or blocks). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      isObject(part) &&
      (part.type === 'text' || part.type === 'input_text') &&
      typeof part.text === 'string'
        ? part.text
        : '',
    )
    .filter(Boolean)
    .join(' ');
}

function callsOf(message: Record<string, unknown>): string[] {
  const out: string[] = [];
  // OpenAI: tool_calls[].function.name
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls)
      if (isObject(call) && isObject(call.function) && typeof call.function.name === 'string')
        out.push(call.function.name);
  }
  // Anthropic: content blocks of type tool_use
  if (Array.isArray(message.content)) {
    for (const block of message.content)
      if (isObject(block) && block.type === 'tool_use' && typeof block.name === 'string')
        out.push(block.name);
  }
  return out;
}

/**
 * Reads OpenAI (`{role, content, tool_calls}`) and Anthropic (`{role, content: blocks}`)
 * messages. Refuses what is not a message list; ignores what it does not know (system
 * prompts, tool results, images), since those say little about which report is wanted.
 */
export function parseConversation(messages: unknown): Conversation {
  if (!Array.isArray(messages) || messages.length === 0)
    throw new SelectionError('INVALID_SELECT_REQUEST', 'messages must be a non-empty array');
  if (messages.length > MAX_MESSAGES)
    throw new SelectionError(
      'INVALID_SELECT_REQUEST',
      `messages has ${messages.length} entries; the limit is ${MAX_MESSAGES}`,
    );
  const userTurns: string[] = [];
  const toolCalls: string[] = [];
  let chars = 0;
  messages.forEach((message, i) => {
    if (!isObject(message) || typeof message.role !== 'string')
      throw new SelectionError(
        'INVALID_SELECT_REQUEST',
        `messages[${i}] must be an object with a string role`,
      );
    if (message.role === 'user') {
      const text = textOf(message.content);
      chars += text.length;
      if (text.trim() !== '') userTurns.push(text);
    }
    if (message.role === 'assistant') toolCalls.push(...callsOf(message));
  });
  if (chars > MAX_TEXT_CHARS)
    throw new SelectionError(
      'INVALID_SELECT_REQUEST',
      `the user turns hold ${chars} characters; the limit is ${MAX_TEXT_CHARS}`,
    );
  if (userTurns.length === 0)
    throw new SelectionError('INVALID_SELECT_REQUEST', 'messages has no user turn with text');
  return { userTurns, toolCalls };
}

/** How much an earlier user turn counts, by how far back it is (0 = the last one). */
const TURN_WEIGHTS = [1, 0.3, 0.1, 0.05];
/** A tool called earlier: the latest call weighs most (a follow-up usually refines it). */
const CALL_BOOSTS = [1.25, 1.1, 1.05];
/** synonyms of a word the catalog already uses count this much less */
const OWN_WORD_SYNONYM_FACTOR = 0;

/**
 * Puts a word's (or phrase's) synonyms that the catalog uses in the query. They share the
 * word's credit: each gets 1/sqrt(n) of it, so a report matching four synonyms of one word
 * ("problems" ~ ticket, case, issue, request) counts twice, not four times, one matching one.
 */
function expand(
  word: string,
  expansions: Expansion[],
  weight: number,
  knows: ((term: string) => boolean) | undefined,
  put: (term: string, weight: number, label: string) => void,
): void {
  const useful = knows ? expansions.filter((e) => knows(e.term)) : expansions;
  if (useful.length === 0) return;
  const share = weight / Math.sqrt(useful.length);
  for (const e of useful) put(e.term, e.weight * share, `${word}~${e.term}`);
}

/**
 * The weighted query for a conversation: the last user turn counts fully, earlier ones
 * less; every word brings its synonyms at a lower weight; tools called earlier get a boost.
 */
export function conversationQuery(
  conversation: Conversation,
  vocabulary: Vocabulary,
  options: RankingOptions,
  /** whether some tool's metadata uses a term; unknown: every word counts as the user's own */
  knows?: (term: string) => boolean,
): WeightedQuery {
  const weights = new Map<string, number>();
  const labels = new Map<string, string>();
  const own = new Set<string>();
  const put = (term: string, weight: number, label: string): void => {
    if ((weights.get(term) ?? 0) >= weight) return;
    weights.set(term, weight);
    labels.set(term, label);
  };
  const turns = options.conversation ? conversation.userTurns : conversation.userTurns.slice(-1);
  turns
    .slice()
    .reverse()
    .forEach((text, back) => {
      const weight = TURN_WEIGHTS[Math.min(back, TURN_WEIGHTS.length - 1)];
      const all = words(text);
      for (const word of all) {
        if (isStopWord(word)) continue;
        const term = options.stemming ? stem(word) : word;
        put(term, weight, word);
        own.add(term);
        // a word the catalog itself uses mostly means what it says there; a word it does not
        // use (the user's own word, "quit") leans on its synonyms
        const known = knows?.(term) ?? false;
        if (known && OWN_WORD_SYNONYM_FACTOR === 0) continue;
        const trust = known ? OWN_WORD_SYNONYM_FACTOR : 1;
        expand(word, vocabulary.expand(word), weight * trust, knows, put);
      }
      expandPhrases(all, vocabulary, weight, knows, put);
    });
  const toolBoosts = options.conversation
    ? callBoosts(conversation.toolCalls)
    : new Map<string, number>();
  return { weights, labels, toolBoosts, own };
}

/** Phrases of the turn's words that the vocabulary knows ("how long"), stop words included. */
function expandPhrases(
  all: string[],
  vocabulary: Vocabulary,
  weight: number,
  knows: ((term: string) => boolean) | undefined,
  put: (term: string, weight: number, label: string) => void,
): void {
  for (let n = 2; n <= MAX_PHRASE_WORDS; n++)
    for (let i = 0; i + n <= all.length; i++) {
      const phrase = all.slice(i, i + n).join(' ');
      expand(phrase, vocabulary.expandPhrase(phrase), weight, knows, put);
    }
}

/** The boost of each tool called earlier: the latest call of a tool counts. */
function callBoosts(toolCalls: readonly string[]): Map<string, number> {
  const boosts = new Map<string, number>();
  toolCalls
    .slice()
    .reverse()
    .forEach((name, back) => {
      const boost = CALL_BOOSTS[Math.min(back, CALL_BOOSTS.length - 1)];
      if (!boosts.has(name)) boosts.set(name, boost);
    });
  return boosts;
}
