import { DEFAULT_RANKING, parseConversation, reportSearchDoc, selectTools, ToolSearchIndex, conversationQuery, vocabularyFor } from '@app/selection';
import { reportToolName } from '@app/templates';
import { evalCatalog } from '/work/wt/select/eval/tool-selection/catalog';
const index = new ToolSearchIndex(DEFAULT_RANKING);
index.sync(evalCatalog().map((r) => reportSearchDoc(reportToolName(r.id), { tenantId: 'e', id: r.id, name: r.name, description: r.description, sqlTemplate: 'x', category: r.category, version: 1, filters: r.filters.map((f) => ({ ...f, required: false, defaultValue: null })), fields: r.fields, synonyms: r.synonyms, exampleQuestions: r.exampleQuestions }, [r.context])));
for (const text of process.argv.slice(2)) {
  const conv = parseConversation([{ role: 'user', content: text }]);
  const q = conversationQuery(conv, vocabularyFor(index), index.options, (t) => index.knows(t));
  console.log(text, [...q.weights].map(([k, v]) => `${k}:${v.toFixed(2)}`).join(' '));
  for (const t of selectTools(index, conv, () => true, 5).tools) console.log('  ', t.score.toFixed(2), t.name, t.matched.join(','));
}
