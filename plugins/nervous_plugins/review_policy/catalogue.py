"""The rule catalogue: every rule id with its title, category, severity, actions and remediation.

Rule ids are stable: never reused or renumbered; a retired rule stays here marked ``deprecated``.
Any change of an action bumps :data:`RULES_VERSION` and gets a line in docs/security.md's changelog.
The SARIF writer and the documentation read this table; detectors only emit rule ids.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from attrs import asdict, frozen

RULES_VERSION = "19"


@frozen
class Rule:
    id: str
    title: str
    category: str
    severity: str  # critical | high | medium | low | info
    install: str  # note | review | refuse
    draft: str  # note | review | refuse
    description: str
    remediation: str
    deprecated: bool = False

    def action(self, purpose: str) -> str:
        return self.draft if purpose == "draft" else self.install


def _r(id: str, title: str, category: str, severity: str, install: str, draft: str, description: str,
       remediation: str) -> Rule:
    return Rule(id, title, category, severity, install, draft, description, remediation)


RULES: tuple[Rule, ...] = (
    # ------------------------------------------------------------------ execution
    _r("NV-EXEC-001", "Download piped into a shell or interpreter", "execution", "critical", "refuse", "refuse",
       "A downloaded script is executed directly (curl|wget … | sh, bash <(curl …), sh -c \"$(curl …)\", "
       "iex (iwr …)). Only well-known vendor installer hosts lower this to review.",
       "Ship the script in the bundle or document a pinned, checksummed install from the vendor's package "
       "manager instead of executing a download."),
    _r("NV-EXEC-002", "Encoded payload decoded into a shell", "execution", "critical", "refuse", "refuse",
       "A base64 (or similar) blob is decoded and executed by a shell or interpreter.",
       "Remove encoded commands; write the commands in clear text so they can be reviewed."),
    _r("NV-EXEC-003", "Download then execute", "execution", "critical", "refuse", "refuse",
       "A file is downloaded and then made executable or run (-o f && chmod +x f && ./f, download then sh f).",
       "Do not run downloaded programs; depend on a packaged, verified release instead."),
    _r("NV-EXEC-004", "Executing fetched content in code", "execution", "critical", "refuse", "refuse",
       "Code passes a network response to eval/exec/Function or an equivalent.",
       "Never evaluate remote content; parse it as data."),
    _r("NV-EXEC-005", "Reverse shell", "execution", "critical", "refuse", "refuse",
       "An interactive shell is wired to a network socket (/dev/tcp, bash -i >&, nc -e, socat exec:, "
       "socket plus dup2/pty one-liners).",
       "Remove the reverse shell; skills must not open remote control channels."),
    _r("NV-EXEC-006", "Embedded payload dropped and executed", "execution", "critical", "refuse", "refuse",
       "A script decodes embedded data (base64, hex), writes it to a file, runs a process and then deletes the "
       "file or makes it executable: the shape of a dropper, whatever the payload is.",
       "Ship programs as reviewable source files; never decode and run embedded payloads."),
    # ------------------------------------------------------------------ supply chain
    _r("NV-SUPPLY-001", "Fake prerequisite", "supply-chain", "critical", "refuse", "refuse",
       "Instructions to paste a command into a terminal or install a 'prerequisite', combined with a remote or "
       "encoded payload, a paste-site URL or a password-protected archive.",
       "Declare real dependencies in metadata (requires.bins, install[]) from official package sources."),
    _r("NV-SUPPLY-002", "Password-protected archive", "supply-chain", "critical", "refuse", "refuse",
       "Instructions to extract an archive with a password, or an encrypted archive in the bundle: the password "
       "exists to defeat malware scanning.",
       "Distribute unencrypted, reviewable files."),
    _r("NV-SUPPLY-003", "Known campaign indicator in an executable context", "supply-chain", "critical",
       "refuse", "refuse",
       "A known malware-campaign indicator appears in a command, download or URL to fetch.",
       "Remove the reference; the indicator belongs to a known malicious campaign."),
    _r("NV-SUPPLY-003b", "Known campaign indicator mentioned", "supply-chain", "medium", "review", "refuse",
       "A known campaign indicator is mentioned in prose or a data list (security tools quote them).",
       "Confirm the mention is documentation (for example a detection list) and not an instruction."),
    _r("NV-SUPPLY-004", "Raw-IP URL", "supply-chain", "medium", "review", "refuse",
       "A URL points at a literal, non-local IP address instead of a named host.",
       "Use a named, verifiable host over HTTPS."),
    _r("NV-SUPPLY-005", "Paste-site or throw-away host", "supply-chain", "high", "review", "refuse",
       "A URL points at a paste bin, snippet site, anonymous file drop, tunnel or request catcher.",
       "Host content in the bundle or at the project's own, durable location."),
    _r("NV-SUPPLY-006", "Install from an untrusted source", "supply-chain", "medium", "review", "refuse",
       "Packages come from a custom index, a tarball or git URL, or a curl | sh installer of a tool.",
       "Install from the default package index with pinned versions."),
    _r("NV-SUPPLY-007", "Look-alike name", "supply-chain", "high", "review", "note",
       "The skill's name is within edit distance 2 of a well-known tool or registry name. Refused when the "
       "skill also claims to be the official tool or fetches something to install or run (download and "
       "execute, password-protected archive, paste-site or raw-IP payload, untrusted install source).",
       "Rename the skill so it cannot be mistaken for the tool it resembles."),
    # ------------------------------------------------------------------ credentials
    _r("NV-CRED-001", "Reads a credential location or secret store", "credentials", "high", "review", "refuse",
       "The skill reads SSH keys, cloud or registry credentials, browser stores, keychains, wallets, agent "
       "secrets or .env files.",
       "Read only the one secret the skill needs, from a declared environment variable (primaryEnv)."),
    _r("NV-CRED-002", "Hard-coded secret literal", "credentials", "high", "review", "refuse",
       "A literal that looks like a real credential (cloud keys, GitHub/Slack/OpenAI tokens, private keys).",
       "Remove the secret, rotate it, and read it from the environment."),
    _r("NV-CRED-003", "Secret in arguments or output", "credentials", "medium", "review", "refuse",
       "A secret is passed on the command line, printed or written to a file.",
       "Pass secrets through the environment or stdin and never print them."),
    _r("NV-CRED-004", "Bulk environment dump", "credentials", "high", "review", "refuse",
       "The whole environment is printed or serialised (env, printenv, os.environ, process.env).",
       "Read the specific variables the skill needs."),
    # ------------------------------------------------------------------ exfiltration
    _r("NV-CRED-005", "Secrets bundled for transfer", "credentials", "critical", "refuse", "refuse",
       "Code gathers the values of two or more secret environment variables into one structure and serialises, "
       "encodes, prints, writes or sends it: a credential harvest, not the use of a key by its own client.",
       "Pass each key only to the client that needs it; never collect secrets into one payload."),
    _r("NV-EXFIL-001", "Credential harvest combined with sending data", "exfiltration", "critical", "refuse",
       "refuse",
       "A credential-store read or environment dump occurs in a skill that also uploads or posts data.",
       "Remove the credential read or the upload; a declared API key sent to its own service does not need "
       "either."),
    _r("NV-EXFIL-002", "Sends local files or command output to a remote host", "exfiltration", "high", "review",
       "refuse",
       "Local files or command output are uploaded (curl -d @file, --data-binary @…, -F file=@…, uploads).",
       "Send only the data the task needs, to the service the skill is for, and say so in the description."),
    _r("NV-EXFIL-003", "Posts to a chat webhook, bot API or paste site", "exfiltration", "medium", "review",
       "refuse",
       "Data goes to a chat webhook, bot API or paste site (refused together with a credential finding).",
       "Document the destination and keep secrets out of the message."),
    _r("NV-EXFIL-004", "Instructions to send private data to a third party", "exfiltration", "critical",
       "refuse", "refuse",
       "The instructions tell the agent to send, upload or include secrets, conversation history, memory or "
       "user files to an external address.",
       "Remove the instruction; a skill must not move user data to destinations the user did not choose."),
    _r("NV-EXFIL-005", "Secret sent to an unrelated host", "exfiltration", "critical", "refuse", "refuse",
       "A secret-named environment variable flows into the body, query or command line of a request to a host "
       "that neither the secret's name nor the skill's stated subject points at. (A key sent in an "
       "authorisation header to its own service is normal.)",
       "Send each secret only to the service it belongs to, in an authorisation header, and declare it."),
    # ------------------------------------------------------------------ prompt injection
    _r("NV-PI-001", "Concealment directive", "prompt-injection", "critical", "refuse", "refuse",
       "Instructions to hide actions from the user (do not tell the user, without informing the user, silently "
       "send/install/run …).",
       "Remove the directive; every action a skill takes must be visible to the user."),
    _r("NV-PI-002", "Instruction override or role impersonation", "prompt-injection", "critical", "refuse",
       "refuse",
       "Text that tries to override the agent's instructions or impersonate a system turn (ignore previous "
       "instructions, you are now DAN, chat-template tokens).",
       "Remove the override text."),
    _r("NV-PI-002b", "Instruction override quoted as data", "prompt-injection", "medium", "review", "refuse",
       "Override phrases appear quoted (code blocks, quotes, tables), for example in detection lists.",
       "Confirm the text is quoted data and cannot reach the agent as an instruction."),
    _r("NV-PI-003", "Deceptive output manipulation", "prompt-injection", "high", "refuse", "refuse",
       "Instructions to falsify results, lie to the user, or insert undisclosed content (links, referral codes) "
       "into answers.",
       "Remove the instruction; a skill's output must be faithful."),
    _r("NV-PI-004", "Claimed prior approval", "prompt-injection", "high", "review", "refuse",
       "The text tells the agent that the user (or an owner or administrator) has already approved all of its "
       "actions. Approval is given in the conversation, never by the skill; refused together with an "
       "instruction to skip confirmation or to hide actions, in the same file.",
       "Remove the claim; let the agent ask the user for consequential actions."),
    # ------------------------------------------------------------------ obfuscation
    _r("NV-OBF-001", "Hidden Unicode", "obfuscation", "critical", "refuse", "refuse",
       "Unicode tag characters, zero-width or bidi controls that hide text from people.",
       "Remove invisible characters."),
    _r("NV-OBF-002", "HTML comment with instructions", "obfuscation", "medium", "review", "refuse",
       "An HTML comment carries instructions that a rendered view hides from people.",
       "Move instructions into visible text or delete the comment."),
    _r("NV-OBF-006", "Hidden instruction to take a risky action", "obfuscation", "critical", "refuse", "refuse",
       "A comment hidden from rendered views tells the agent to run, install, send, read secrets or contact a "
       "URL: instructions nobody reviewing the page would see.",
       "Delete the hidden instruction; anything the agent must do belongs in visible text."),
    _r("NV-OBF-007", "Encoded URL or command", "obfuscation", "critical", "refuse", "refuse",
       "A base64 or hex literal decodes to a URL or a shell command: a destination or command hidden from "
       "review.",
       "Write URLs and commands in clear text."),
    _r("NV-OBF-003", "Encoded blob", "obfuscation", "medium", "review", "refuse",
       "A base64 or hex blob of at least 200 characters outside a data file.",
       "Ship decoded content or a data file with a clear purpose."),
    _r("NV-OBF-004", "Whitespace padding", "obfuscation", "medium", "review", "refuse",
       "Long runs of blanks or blank lines push text out of view.",
       "Remove the padding."),
    _r("NV-OBF-005", "Opaque code", "obfuscation", "medium", "review", "refuse",
       "Compiled or binary files, minified code, non-UTF-8 text, nested archives or scripts in a language "
       "without a detector: classified by assuming the worst.",
       "Ship readable source code."),
    # ------------------------------------------------------------------ persistence
    _r("NV-PERSIST-001", "Writes to a persistence location", "persistence", "high", "review", "refuse",
       "Shell start-up files, cron, systemd units, launch agents, Run keys, scheduled tasks or git hooks.",
       "Let the user schedule or configure start-up behaviour themselves."),
    _r("NV-PERSIST-002", "Writes to agent memory or configuration", "persistence", "critical", "refuse",
       "refuse",
       "Writes to the agent's memory or configuration (SOUL.md, MEMORY.md, AGENTS.md, openclaw.json) or to "
       "another skill's directory.",
       "Keep a skill's state inside its own directory."),
    # ------------------------------------------------------------------ remote instructions
    _r("NV-REMOTE-001", "Remote instruction loading", "remote-instructions", "high", "review", "refuse",
       "The skill fetches instructions or code from a URL at run time and follows them, or updates itself "
       "from a URL. Refused when the fetched instructions are a standing channel: followed on a schedule "
       "(heartbeat), given precedence over the skill, or served from a raw-IP or paste host.",
       "Ship the instructions in the bundle; pinned content is what was reviewed."),
    _r("NV-REMOTE-002", "Behaviour keyed to a planted file", "remote-instructions", "medium", "review", "refuse",
       "The instructions check whether a file exists at a fixed location outside the skill and outside the "
       "user's project (a home directory, /opt, /srv, /tmp, …) and act on it: whoever can place that file "
       "steers the agent, and the reviewed skill stays innocent-looking. Refused when the file is then run, "
       "sourced or imported (code the skill does not ship).",
       "Ship the file in the bundle, or have the user name it; do not let an unshipped file switch behaviour."),
    # ------------------------------------------------------------------ privilege
    _r("NV-PRIV-001", "Privilege escalation", "privilege", "high", "review", "refuse",
       "sudo, su, doas, pkexec, runas, or writes to system locations.",
       "Document what needs elevated rights and let the user run it."),
    _r("NV-PRIV-002", "Disables OS security", "privilege", "critical", "refuse", "refuse",
       "Removes quarantine attributes or turns off Gatekeeper, SELinux, the firewall or antivirus.",
       "Never weaken the operating system's protections."),
    _r("NV-PRIV-003", "World-writable permissions", "privilege", "high", "review", "refuse",
       "chmod 777, a+w or o+w; refused when recursive, elevated or aimed at system or home locations.",
       "Grant the narrowest permissions the task needs."),
    # ------------------------------------------------------------------ network
    _r("NV-NET-001", "TLS verification disabled", "network", "medium", "review", "refuse",
       "Certificate checks are switched off (-k, --insecure, verify=False, rejectUnauthorized: false).",
       "Keep TLS verification on; install the right CA instead."),
    # ------------------------------------------------------------------ destructive
    _r("NV-DESTR-001", "Catastrophic delete", "destructive", "critical", "refuse", "refuse",
       "Deletes the root or home directory, formats disks or overwrites devices.",
       "Delete only named paths inside the workspace."),
    _r("NV-DESTR-002", "Destructive command", "destructive", "medium", "review", "refuse",
       "Recursive deletes, force pushes, dropped tables, cluster or infrastructure deletion.",
       "Gate the step behind an explicit user confirmation."),
    # ------------------------------------------------------------------ autonomy
    _r("NV-AUTO-001", "Always-on skill", "autonomy", "medium", "review", "refuse",
       "metadata.openclaw.always is true: the skill is active without being invoked.",
       "Let the agent invoke the skill when the task needs it."),
    _r("NV-AUTO-002", "Confirmation bypass", "autonomy", "high", "review", "refuse",
       "Instructions or flags that skip confirmations or permission checks.",
       "Keep the user's confirmation for consequential actions."),
    _r("NV-AUTO-003", "Broad pre-approval", "autonomy", "medium", "review", "refuse",
       "allowed-tools grants unscoped Bash (or Bash(*)) or the skill declares hooks.",
       "Scope allowed-tools to the commands the skill needs."),
    # ------------------------------------------------------------------ financial
    _r("NV-FIN-001", "Money movement", "financial", "high", "review", "refuse",
       "Payments, transfers, exchange orders or transaction signing.",
       "Require the user's explicit confirmation of every transaction."),
    _r("NV-FIN-002", "Agentic fraud", "financial", "critical", "refuse", "refuse",
       "Instructions that make the agent earn for someone else at the user's expense: rewriting links or "
       "recommendations with affiliate or referral codes, trading ahead of the user's orders, or skimming a "
       "share of the user's payments to another wallet or account.",
       "Show the user's own links and orders unchanged; disclose and ask before any fee."),
    # ------------------------------------------------------------------ data flow
    _r("NV-FLOW-001", "Untrusted content with secrets and network", "data-flow", "high", "review", "refuse",
       "Untrusted external content enters the agent's context in a skill that also reads secrets and reaches "
       "the network (the lethal trifecta). A note when the only secrets are keys the metadata declares or names "
       "after the service the skill is about, or words about keys with no secret read.",
       "Split the skill, or drop the secret read or the untrusted input."),
    # ------------------------------------------------------------------ limits
    _r("NV-LIMIT-001", "Scan limit exceeded", "limits", "high", "refuse", "refuse",
       "A fail-closed limit (size, file count, depth, time) was exceeded, so the skill was not fully scanned.",
       "Reduce the bundle to the files the skill needs."),
    # ------------------------------------------------------------------ drafts only
    _r("NV-SCOPE-001", "File action outside the workspace", "scope", "high", "note", "refuse",
       "A draft acts on absolute paths, ~ or .. escapes.",
       "Keep file actions inside the workspace."),
    _r("NV-SCOPE-002", "Reference into another skill's directory", "scope", "high", "note", "refuse",
       "A draft references bundled or third-party skill directories.",
       "Depend on skills by name, not by their files."),
    _r("NV-SCOPE-003", "Network upload in a draft", "scope", "high", "note", "refuse",
       "A draft can upload or push data over the network.",
       "A human must write skills that send data."),
)

BY_ID: dict[str, Rule] = {r.id: r for r in RULES}

#: for every rule that can ask for a review: the one thing a person should check before approving
CHECKS: dict[str, str] = {
    "NV-EXEC-001": "the download host is the tool's own vendor and the tool is one the skill needs",
    "NV-EXEC-002": "what the decoded command does, and why it is encoded",
    "NV-EXEC-003": "the downloaded program comes from the tool's own vendor over HTTPS",
    "NV-EXEC-004": "what the fetched content is and that it is only parsed, never run",
    "NV-EXEC-005": "the socket command is a documented diagnostic, not a shell wired to the network",
    "NV-EXEC-006": "what the embedded data is before anything runs it",
    "NV-SUPPLY-001": "the prerequisite comes from an official source, not a page or paste to copy",
    "NV-SUPPLY-002": "why an archive needs a password; do not extract it",
    "NV-SUPPLY-003": "the indicator is quoted as data, not fetched or run",
    "NV-SUPPLY-003b": "the indicator is quoted as documentation (for example a detection list)",
    "NV-SUPPLY-004": "who runs the IP address and why it has no name",
    "NV-SUPPLY-005": "what the paste or throw-away host serves and whether the skill depends on it",
    "NV-SUPPLY-006": "the package source is the project's own and the version is pinned",
    "NV-SUPPLY-007": "the publisher is the real maker of the tool the name resembles",
    "NV-CRED-001": "the credential read is the one the skill needs, and where its value goes",
    "NV-CRED-002": "whether the literal is a live secret (then it must be rotated)",
    "NV-CRED-003": "the secret never lands in logs, output or shared files",
    "NV-CRED-004": "why the whole environment is read and where it goes",
    "NV-CRED-005": "where the gathered secrets go",
    "NV-EXFIL-001": "which secrets are read and whether any of them reach the upload",
    "NV-EXFIL-002": "which files or output are uploaded and that the destination is the skill's service",
    "NV-EXFIL-003": "the webhook or bot belongs to the user and no secret is in the message",
    "NV-EXFIL-004": "the destination is one the user chose and the data is the user's to send",
    "NV-EXFIL-005": "the secret goes to its own service",
    "NV-PI-001": "what the text keeps from the user, and that no action is hidden",
    "NV-PI-002": "the override text is quoted, not addressed to the agent",
    "NV-PI-002b": "the quoted override text cannot reach the agent as an instruction",
    "NV-PI-003": "the skill reports results faithfully and adds nothing undisclosed",
    "NV-PI-004": "the agent still asks the user before consequential actions",
    "NV-OBF-001": "what the invisible characters spell",
    "NV-OBF-002": "what the comment tells the agent to do",
    "NV-OBF-003": "what the encoded blob decodes to",
    "NV-OBF-004": "what the padding pushes out of view",
    "NV-OBF-005": "what the opaque files do (they could not be read)",
    "NV-OBF-006": "what the hidden instruction asks",
    "NV-OBF-007": "where the decoded URL or command leads",
    "NV-PERSIST-001": "what is scheduled or started at login, and that the user asked for it",
    "NV-PERSIST-002": "what is written to the agent's memory or settings, and that the user sees it first",
    "NV-REMOTE-001": "who controls the fetched instructions and whether the agent obeys them",
    "NV-REMOTE-002": "who can place the file the skill looks for",
    "NV-PRIV-001": "which commands need administrator rights and why",
    "NV-PRIV-002": "why the operating system's protection is switched off",
    "NV-PRIV-003": "which files become writable by everyone",
    "NV-NET-001": "why certificate checks are off and for which host",
    "NV-DESTR-001": "the delete cannot reach the home or root directory",
    "NV-DESTR-002": "what is deleted or overwritten, and that the step asks the user first",
    "NV-AUTO-001": "why the skill must be active without being invoked",
    "NV-AUTO-002": "which confirmations are skipped and for what actions",
    "NV-AUTO-003": "which commands the pre-approval lets the agent run without asking",
    "NV-FIN-001": "every payment, transfer or order waits for the user's explicit confirmation",
    "NV-FIN-002": "whose links, orders or fees the skill inserts",
    "NV-FLOW-001": "which stored secret an injected page could make the agent send, and to where",
    "NV-LIMIT-001": "which limit was exceeded (the skill was not fully scanned)",
}


def what_to_check(rule_id: str) -> str:
    """The one line a reviewer needs for a finding (its remediation when no check is written)."""
    return CHECKS.get(rule_id) or BY_ID[rule_id].remediation

SECURITY_SEVERITY: dict[str, float] = {"critical": 9.5, "high": 8.0, "medium": 5.5, "low": 3.0, "info": 1.0}


def rule(rule_id: str) -> Rule:
    return BY_ID[rule_id]


def catalogue_json() -> list[dict[str, Any]]:
    """The catalogue as plain data (for documentation and fingerprints)."""
    return [{**asdict(r), "check": what_to_check(r.id)} for r in RULES]


def policy_fingerprint(limits: dict[str, Any], extra: dict[str, Any] | None = None) -> str:
    """SHA-256 of the canonical JSON of the active rules, actions and limits (§11.1)."""
    doc = {"rules_version": RULES_VERSION, "rules": [[r.id, r.install, r.draft, r.severity, r.deprecated]
                                                      for r in RULES],
           "limits": limits, **(extra or {})}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
