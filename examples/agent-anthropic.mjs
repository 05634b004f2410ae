// An Anthropic (Messages API) tool loop over the gateway: the tool list is fetched again every
// round, so a report onboarded mid-conversation is usable from the next round (never the same
// one). The gateway runs the round's tool_use blocks in parallel and returns the user message
// of tool_result blocks to append.
// Run: TOKEN=$(npm run --silent token -- --tenant acme --user alice --roles analyst) \
//      ANTHROPIC_API_KEY=... node examples/agent-anthropic.mjs "Sales in the east region?"
import Anthropic from '@anthropic-ai/sdk';

const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000';
const model = process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5';
const auth = { authorization: `Bearer ${process.env.TOKEN}` };
const anthropic = new Anthropic(); // ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL from the environment

async function gatewayJson(path, init = {}) {
  const res = await fetch(`${gateway}${path}`, {
    ...init,
    headers: { ...auth, 'content-type': 'application/json', ...init.headers },
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

const messages = [{ role: 'user', content: process.argv[2] ?? 'Sales by region?' }];
for (let round = 1; round <= 8; round++) {
  const { tools } = await gatewayJson('/v1/tools?format=anthropic&strict=true');
  const reply = await anthropic.messages.create({ model, max_tokens: 2048, messages, tools });
  messages.push({ role: 'assistant', content: reply.content });
  if (reply.stop_reason !== 'tool_use') {
    console.log(reply.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
    process.exit(0);
  }
  // every tool_use block of the round in parallel, each with its own outcome
  const done = await gatewayJson('/v1/tool-calls', { method: 'POST', body: JSON.stringify(reply) });
  messages.push(done.message);
}
console.error('no answer after 8 rounds');
process.exit(1);
