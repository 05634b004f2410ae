// An OpenAI tool loop over the gateway: the tool list is fetched again every round, so a
// report onboarded mid-conversation is usable from the next round (never the same one).
// Run: TOKEN=$(npm run --silent token -- --tenant acme --user alice --roles analyst) \
//      OPENAI_API_KEY=... node examples/agent-openai.mjs "Sales in the east region?"
import OpenAI from 'openai';

const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000';
const model = process.env.OPENAI_MODEL ?? 'gpt-4.1';
const auth = { authorization: `Bearer ${process.env.TOKEN}` };
const openai = new OpenAI(); // OPENAI_API_KEY, OPENAI_BASE_URL from the environment

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
  const { tools } = await gatewayJson('/v1/tools?format=openai&strict=true');
  const completion = await openai.chat.completions.create({ model, messages, tools });
  const reply = completion.choices[0].message;
  messages.push(reply);
  if (!reply.tool_calls?.length) {
    console.log(reply.content);
    process.exit(0);
  }
  // every call of the round in parallel, each with its own outcome
  const done = await gatewayJson('/v1/tool-calls', { method: 'POST', body: JSON.stringify(reply) });
  messages.push(...done.messages);
}
console.error('no answer after 8 rounds');
process.exit(1);
