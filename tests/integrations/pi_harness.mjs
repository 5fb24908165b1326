// Loads the nervous pi package with the real pi SDK (no model) and runs a script of steps.
//
// argv: <pi node_modules dir>. stdin: {"cwd", "agentDir", "steps": [...]}; a step is
// {"tool": name, "params": {...}} (validated against the tool's schema by pi, then executed),
// {"command": "/name args"} (through session.prompt, as a user typing it) or {"resources": true}.
// Prints one JSON object: {"load_errors", "tools", "commands", "results": [...]}; each command
// result lists the messages the extension added and the user messages it sent to the agent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const nodeModules = process.argv[2];
const pi = await import(pathToFileURL(join(nodeModules, "@mariozechner/pi-coding-agent/dist/index.js")).href);
const piAi = await import(pathToFileURL(join(nodeModules, "@mariozechner/pi-ai/dist/index.js")).href);
const script = JSON.parse(readFileSync(0, "utf8"));

const sent = [];
const errors = [];
const capture = (api) => {
  // pi's own input hook: user messages an extension sends arrive here before any model is needed
  api.on("input", async (event) => {
    sent.push(event.text);
    return { action: "handled" };
  });
};
const settingsManager = pi.SettingsManager.create(script.cwd, script.agentDir);
const loader = new pi.DefaultResourceLoader({ cwd: script.cwd, agentDir: script.agentDir, settingsManager,
  extensionFactories: [capture] });
await loader.reload();
const { session, extensionsResult } = await pi.createAgentSession({
  cwd: script.cwd, agentDir: script.agentDir, resourceLoader: loader, settingsManager,
  sessionManager: pi.SessionManager.inMemory(script.cwd),
});
await session.bindExtensions({ onError: (e) => errors.push(e.error) });

const out = {
  load_errors: extensionsResult.errors,
  tools: session.getAllTools().filter((t) => t.sourceInfo?.source !== "builtin").map((t) => t.name),
  commands: session.extensionRunner.getRegisteredCommands().map((c) => c.name).sort(),
  results: [],
};
for (const step of script.steps) {
  if (step.resources) {
    out.results.push({
      skills: loader.getSkills().skills.map((s) => ({ name: s.name, path: s.filePath })),
      prompts: loader.getPrompts().prompts.map((p) => p.name),
    });
  } else if (step.tool) {
    const tool = session.agent.state.tools.find((t) => t.name === step.tool);
    try {
      const args = piAi.validateToolArguments(tool, { name: step.tool, arguments: step.params });
      const res = await tool.execute(`call-${out.results.length}`, args);
      out.results.push({ ok: true, text: res.content.map((c) => c.text).join("\n"), details: res.details });
    } catch (e) {
      out.results.push({ ok: false, error: String(e?.message ?? e) });
    }
  } else if (step.command) {
    const before = session.messages.length;
    sent.length = 0;
    errors.length = 0;
    await session.prompt(step.command);
    const added = session.messages.slice(before).filter((m) => m.role === "custom");
    out.results.push({ messages: added.map((m) => ({ type: m.customType, content: m.content, details: m.details })),
      sent: [...sent], errors: [...errors] });
  }
}
session.dispose();
process.stdout.write(JSON.stringify(out));
