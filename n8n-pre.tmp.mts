import { ensureN8n, n8nLines } from "/work/main/tests/support/n8n-server";
const which = process.argv[2] as "current" | "older";
console.log(ensureN8n(n8nLines[which]));
