/**
 * nervous for pi: the `goal` tool, the goal workflow commands and the nervous skills.
 *
 * Every action goes through the `nervous` command line (`goal call`, `goal ... --json`), so goals
 * live in nervous's store and the same goals are seen from pi, MCP clients and the shell. The
 * extension keeps no state of its own.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@mariozechner/pi-coding-agent";

const HERE = dirname(fileURLToPath(import.meta.url));
const GOAL_SCHEMA = JSON.parse(readFileSync(join(HERE, "goal-tool.schema.json"), "utf8"));
const MESSAGE_TYPE = "nervous";
const TIMEOUT_MS = 120_000;

type Envelope = { ok?: boolean; code?: string; message?: string; markdown?: string; next?: string;
  warnings?: string[]; error?: { code?: string; message?: string }; [key: string]: unknown };

/** The nervous executable: NERVOUS_BIN if set, else `nervous` on PATH. */
function nervousBin(): string {
  return process.env.NERVOUS_BIN?.trim() || "nervous";
}

/** Run `nervous ARGS` in `cwd` (no shell), feed `input` on stdin, parse the one JSON object it prints. */
export function runNervous(args: string[], cwd: string, input?: string, signal?: AbortSignal): Promise<Envelope> {
  return new Promise((resolve, reject) => {
    const child = spawn(nervousBin(), args, { cwd, signal, stdio: ["pipe", "pipe", "pipe"], timeout: TIMEOUT_MS,
      env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => { out += chunk; });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => { err += chunk; });
    child.on("error", (e: NodeJS.ErrnoException) => {
      reject(new Error(e.code === "ENOENT"
        ? `the nervous command was not found (${nervousBin()}); install nervous or set NERVOUS_BIN`
        : `nervous could not be run: ${e.message}`));
    });
    child.on("close", (code: number | null) => {
      try {
        resolve(JSON.parse(out) as Envelope);
      } catch {
        const detail = (err.trim() || out.trim()).split("\n").slice(-3).join(" ").slice(0, 500);
        reject(new Error(`nervous ${args[0] ?? ""} exited with ${code} without a JSON answer: ${detail}`));
      }
    });
    child.stdin.end(input ?? "");
  });
}

/** The failure of an envelope as one line, or undefined when it succeeded. */
function failure(env: Envelope): string | undefined {
  if (env.ok !== false) return undefined;
  const code = env.code ?? env.error?.code ?? "error";
  const message = env.message ?? env.error?.message ?? "nervous reported a failure";
  return `${code}: ${message}`;
}

/** What a person or the model reads: the Markdown, the next step and every warning. */
export function render(env: Envelope): string {
  const parts: string[] = [];
  if (typeof env.markdown === "string" && env.markdown) parts.push(env.markdown);
  if (typeof env.next === "string" && env.next && !(env.markdown ?? "").includes("**Next:**")) {
    parts.push(`**Next:** ${env.next}`);
  }
  for (const w of env.warnings ?? []) parts.push(`Warning: ${w}`);
  return parts.join("\n\n") || JSON.stringify(env, null, 2);
}

/** A prompt of this package with `$ARGUMENTS` filled in. */
export function prompt(name: string, args: string): string {
  const text = readFileSync(join(HERE, "prompts", `${name}.md`), "utf8");
  const body = text.replace(/^---\n[\s\S]*?\n---\n/, "");
  return body.replace(/\$ARGUMENTS|\$@/g, args.trim()).replace(/\n{3,}/g, "\n\n").trim();
}

/** Split `key=value` tokens (values may be quoted) from the free text that follows them. */
export function splitTokens(args: string): { tokens: string[]; rest: string } {
  const tokens: string[] = [];
  let rest = args.trim();
  const re = /^([a-z_]+)=("([^"]*)"|'([^']*)'|(\S*))\s*/;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    tokens.push(`${m[1]}=${m[3] ?? m[4] ?? m[5] ?? ""}`);
    rest = rest.slice(m[0].length);
  }
  return { tokens, rest: rest.trim() };
}

async function show(pi: ExtensionAPI, ctx: ExtensionContext, env: Envelope): Promise<void> {
  const bad = failure(env);
  const text = bad ?? render(env);
  if (ctx.hasUI) ctx.ui.notify(bad ? text : (env.next ? `next: ${env.next}` : "done"), bad ? "error" : "info");
  pi.sendMessage({ customType: MESSAGE_TYPE, content: text, display: true, details: env });
}

async function dispatch(pi: ExtensionAPI, ctx: ExtensionCommandContext, name: string, args: string): Promise<void> {
  const text = prompt(name, args);
  if (!ctx.isIdle()) await ctx.waitForIdle();
  pi.sendUserMessage(text);
}

export default function nervous(pi: ExtensionAPI): void {
  pi.on("resources_discover", async () => ({ skillPaths: [join(HERE, "skills")] }));

  pi.registerTool({
    name: "goal",
    label: "Goal",
    description: "Durable goals for this project, kept by nervous: analyze a request, refine, plan, link tasks, "
      + "verify, complete, block or escalate, accept risk, record failures, reopen, cancel, drain, get_config, "
      + "set_config, and query (get, list, summary). get with goal_id 'current' resumes where work stopped. "
      + "The answer's 'next' says what to do next.",
    promptSnippet: "Keep durable goals (analyze, plan, verify, complete, drain) that survive restarts",
    promptGuidelines: [
      "Use the goal tool for multi-step work: analyze the request into a goal, plan, verify against the success criteria, then complete (the goal-workflow skill).",
      "After a restart or compaction, call the goal tool with action get and goal_id current before doing anything else.",
    ],
    parameters: GOAL_SCHEMA,
    async execute(_toolCallId: string, params: Record<string, unknown>, signal: AbortSignal | undefined,
      _onUpdate: unknown, ctx: ExtensionContext) {
      const env = await runNervous(["goal", "call", "-"], ctx.cwd, JSON.stringify(params), signal);
      const bad = failure(env);
      if (bad) throw new Error(bad);
      return { content: [{ type: "text" as const, text: render(env) }], details: env };
    },
  } as any);

  pi.registerCommand("cortex", {
    description: "Show the current goal; with a request, run the goal workflow for it",
    handler: async (args, ctx) => {
      if (args.trim()) return dispatch(pi, ctx, "cortex", args);
      await show(pi, ctx, await runNervous(["goal", "call", "-"], ctx.cwd, '{"action":"get","goal_id":"current"}'));
    },
  });
  pi.registerCommand("cortex:goals", {
    description: "List every goal of this project",
    handler: async (_args, ctx) => {
      await show(pi, ctx, await runNervous(["goal", "call", "-"], ctx.cwd, '{"action":"list"}'));
    },
  });
  pi.registerCommand("cortex:resume", {
    description: "Resume the current goal: show it with what to do next, and continue",
    handler: async (args, ctx) => {
      const env = await runNervous(["goal", "call", "-"], ctx.cwd, '{"action":"get","goal_id":"current"}');
      await show(pi, ctx, env);
      if (!failure(env)) await dispatch(pi, ctx, "cortex-resume", args);
    },
  });
  pi.registerCommand("nervous", {
    description: "Drain: work through every unfinished goal (optional drain=, risk=, policy= settings first)",
    handler: async (args, ctx) => {
      const { tokens, rest } = splitTokens(args);
      if (tokens.length) {
        const env = await runNervous(["goal", "set-config", ...tokens, "--json"], ctx.cwd);
        await show(pi, ctx, env);
        if (failure(env)) return;
      }
      await dispatch(pi, ctx, "nervous", rest);
    },
  });
  pi.registerCommand("nervous:config", {
    description: "Show the goal settings, or change them: drain=, policy=, risk=, evidence=, dangerous_opt_in=true",
    handler: async (args, ctx) => {
      const { tokens, rest } = splitTokens(args);
      if (rest && rest !== "show") {
        await show(pi, ctx, { ok: false, code: "invalid_arg",
          message: `expected 'show' or key=value settings, got ${JSON.stringify(rest)}` });
        return;
      }
      const argv = tokens.length ? ["goal", "set-config", ...tokens, "--json"] : ["goal", "get-config", "--json"];
      await show(pi, ctx, await runNervous(argv, ctx.cwd));
    },
  });
  pi.registerCommand("nervous:state", {
    description: "Goal counts, the current goal and what needs attention",
    handler: async (_args, ctx) => {
      await show(pi, ctx, await runNervous(["goal", "call", "-"], ctx.cwd, '{"action":"summary"}'));
    },
  });
  pi.registerCommand("nervous:reset", {
    description: "Archive this project's goals and start empty (asks first; 'confirm' without a UI)",
    handler: async (args, ctx) => {
      let confirmed = args.trim() === "confirm";
      if (!confirmed && ctx.hasUI) {
        confirmed = await ctx.ui.confirm("Reset goals?", "Archive every goal of this project and start empty?");
      }
      if (!confirmed) {
        await show(pi, ctx, { ok: false, code: "not_confirmed",
          message: "nothing was reset; run /nervous:reset confirm to archive the goals and start empty" });
        return;
      }
      await show(pi, ctx, await runNervous(["goal", "reset", "--yes", "--json"], ctx.cwd));
    },
  });
}
