// A LangChain agent over the gateway's MCP endpoint: LangChain's MCP adapters turn the
// caller's report tools into LangChain tools, and LangGraph's prebuilt ReAct agent runs the
// loop with an OpenAI chat model.
// Run: TOKEN=$(npm run --silent token -- --tenant acme --user alice --roles analyst) \
//      OPENAI_API_KEY=... node examples/mcp-langchain.mjs "Sales in the east region?"
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOpenAI } from '@langchain/openai';

const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000';
const client = new MultiServerMCPClient({
  mcpServers: {
    reports: {
      transport: 'http',
      url: `${gateway}/mcp`,
      headers: { authorization: `Bearer ${process.env.TOKEN}` },
    },
  },
});

try {
  const tools = await client.getTools();
  const llm = new ChatOpenAI({
    model: process.env.OPENAI_MODEL ?? 'gpt-4.1',
    configuration: { baseURL: process.env.OPENAI_BASE_URL }, // unset: api.openai.com
  });
  const agent = createReactAgent({ llm, tools });
  const question = process.argv[2] ?? 'Sales by region?';
  const { messages } = await agent.invoke(
    { messages: [{ role: 'user', content: question }] },
    { recursionLimit: 16 },
  );
  console.log(messages.at(-1).content);
} finally {
  await client.close(); // ends the MCP session
}
