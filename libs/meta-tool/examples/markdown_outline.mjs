// The contract example for meta_tool: a tool that parses Markdown into an outline.
// Propose it with: {"name":"markdown_outline","code":<this file>,"testArgs":{"markdown":"# Title\n- a\n## Part\n- b\n- c"}}
export default {
  name: 'markdown_outline',
  description:
    'Turns Markdown text into an outline: every heading with its level, and how many list items and words follow it before the next heading.',
  schema: {
    type: 'object',
    properties: {
      markdown: { type: 'string', maxLength: 50000, description: 'the Markdown text' },
    },
    required: ['markdown'],
    additionalProperties: false,
  },
  async run(args) {
    if (!args || typeof args.markdown !== 'string') throw new Error('markdown must be a string');
    const outline = [];
    let current = { level: 0, title: '(before the first heading)', list_items: 0, words: 0 };
    let inFence = false;
    for (const line of args.markdown.split(/\r?\n/)) {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      const heading = inFence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading) {
        if (current.level > 0 || current.list_items > 0 || current.words > 0) outline.push(current);
        current = { level: heading[1].length, title: heading[2], list_items: 0, words: 0 };
        continue;
      }
      if (!inFence && /^\s*([-*+]|\d+[.)])\s+/.test(line)) current.list_items += 1;
      current.words += line.split(/\s+/).filter(Boolean).length;
    }
    if (current.level > 0 || current.list_items > 0 || current.words > 0) outline.push(current);
    return { headings: outline.filter((h) => h.level > 0).length, outline };
  },
};
