#!/usr/bin/env bash
# Drives the MCP inspector's CLI (a client nobody here wrote) against a running gateway:
# tools/list, then tools/call. `npm run mcp:inspect` (gateway on 127.0.0.1:3000), or
# MCP_URL=http://host:port/mcp TOKEN=... npm run mcp:inspect
set -euo pipefail
cd "$(dirname "$0")/.."
URL=${MCP_URL:-http://127.0.0.1:3000/mcp}
TOKEN=${TOKEN:-$(npm run --silent token -- --tenant acme --user alice --roles analyst)}
# @modelcontextprotocol/inspector-cli is what `npx @modelcontextprotocol/inspector --cli` runs;
# 0.16.8 is pinned: it takes --header and runs on Node 20 (the full inspector wants Node 22).
inspector() {
  node node_modules/@modelcontextprotocol/inspector-cli/build/index.js "$URL" --transport http \
    --header "Authorization: Bearer $TOKEN" "$@"
}
echo "== tools/list ($URL)"
inspector --method tools/list
echo "== tools/call query_report_sales_by_region region=east"
inspector --method tools/call --tool-name query_report_sales_by_region --tool-arg region=east
