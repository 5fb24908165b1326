"""Indicator lists shipped as data (specs/security.md §9): campaign strings, host families, tiers.

These lists support the technique rules; no rule refuses on a list entry alone unless it sits in an
executable context (NV-SUPPLY-003). Entries are written defanged where they are network locations
and re-fanged when loaded, so this file never holds a live link.
"""

from __future__ import annotations


def _fang(s: str) -> str:
    return s.replace("[.]", ".")


#: Known campaign indicators (ClawHavoc and related waves), matched case-insensitively.
CAMPAIGN_INDICATORS: tuple[str, ...] = tuple(
    _fang(s)
    for s in (
        "openclawcli",
        "openclaw-core",
        "openclaw-agent.zip",
        "openclawcli.zip",
        "extract using pass: openclaw",
        "glot[.]io/snippets/",
        "openclawcli.vercel[.]app",
        "rentry[.]co/",
        "ClawdAuthenticatorTool",
        "91.92.242[.]30",
        "Download and install (Windows, MacOS) from",
        "execute the installation command in Terminal",
    )
)

#: Vendor installer hosts (``host`` or ``host/path-prefix``) allowed the NV-EXEC-001/003 exception.
VENDOR_INSTALLER_HOSTS: tuple[str, ...] = tuple(
    _fang(s)
    for s in (
        "sh[.]rustup[.]rs",
        "get[.]docker[.]com",
        "astral[.]sh",
        "fly[.]io",
        "aka[.]ms/installazurecli",
        "bun[.]sh",
        "deno[.]land",
        "get[.]pnpm[.]io",
        "ollama[.]com",
        "cursor[.]com",
        "foundry[.]paradigm[.]xyz",
        "raw[.]githubusercontent[.]com/homebrew/",
        "raw[.]githubusercontent[.]com/nvm-sh/",
        "install[.]python-poetry[.]org",
        "sdk[.]cloud[.]google[.]com",
        "cli[.]github[.]com",
        "get[.]helm[.]sh",
        "claude[.]ai/install",
        "opencode[.]ai/install",
        "tailscale[.]com/install",
        "vercel[.]com/install",
        "supabase[.]com",
        "get[.]k3s[.]io",
        "nixos[.]org",
        "install[.]determinate[.]systems",
        "starship[.]rs",
        "mise[.]run",
        "sh[.]uv[.]dev",
        "pyenv[.]run",
        "get[.]volta[.]sh",
        "railway[.]app",
        "railway[.]com",
        "render[.]com",
        "dl[.]google[.]com",
        "download[.]docker[.]com",
        "openclaw[.]ai",
        "clawhub[.]ai",
        "console[.]cloud[.]google[.]com",
        "cli[.]doppler[.]com",
        "pkgx[.]sh",
        "tea[.]xyz",
        "moonrepo[.]dev",
        "goreleaser[.]com",
    )
)

#: Paste sites, snippet hosts, throw-away file drops, tunnels and request catchers (NV-SUPPLY-005).
PASTE_HOSTS: tuple[str, ...] = tuple(
    _fang(s)
    for s in (
        "pastebin[.]com", "paste[.]ee", "hastebin[.]com", "hastebin[.]skyra[.]pw", "ghostbin", "rentry[.]co",
        "rentry[.]org", "glot[.]io", "termbin[.]com", "ix[.]io", "sprunge[.]us", "dpaste", "controlc[.]com",
        "privatebin", "justpaste[.]it", "pastes[.]io", "paste[.]rs", "bpa[.]st",
        "transfer[.]sh", "file[.]io", "0x0[.]st", "anonfiles", "gofile[.]io", "catbox[.]moe",
        "temp[.]sh", "ufile[.]io", "bashupload[.]com", "oshi[.]at", "filebin[.]net", "tmpfiles[.]org",
        "ngrok[.]io", "ngrok-free[.]app", "ngrok[.]app", "trycloudflare[.]com", "serveo[.]net", "loca[.]lt",
        "localtunnel[.]me", "localhost[.]run", "pinggy[.]io", "bore[.]pub",
        "webhook[.]site", "requestbin", "pipedream[.]net", "beeceptor[.]com", "hookbin[.]com",
        "interact[.]sh", "oast[.]fun", "oast[.]pro", "oast[.]me", "burpcollaborator[.]net", "canarytokens",
        "dnslog[.]cn", "requestcatcher[.]com", "snippet[.]host", "paste[.]gg", "pastes[.]dev", "pastebin[.]pl",
        "telegra[.]ph", "notes[.]io", "txt[.]fyi", "ctxt[.]io", "pastie[.]io", "rlim[.]com", "paste2[.]org",
    )
)

#: Chat webhooks and bot APIs (NV-EXFIL-003).
WEBHOOK_HOSTS: tuple[str, ...] = tuple(
    _fang(s)
    for s in (
        "hooks[.]slack[.]com", "discord[.]com/api/webhooks", "discordapp[.]com/api/webhooks",
        "api[.]telegram[.]org/bot", "webhook[.]office[.]com", "outlook[.]office[.]com/webhook",
        "chat[.]googleapis[.]com/v1/spaces", "open[.]feishu[.]cn/open-apis/bot", "oapi[.]dingtalk[.]com/robot",
        "qyapi[.]weixin[.]qq[.]com/cgi-bin/webhook", "webhook[.]site",
    )
)

#: Shell command tiers (§5.3).
SHELL_TIERS: dict[str, str] = {}
for _tier, _cmds in (
    ("SAFE", "cat head tail ls grep rg sort uniq wc cut tr diff echo printf date whoami pwd which jq"),
    ("CAUTION", "cp mv mkdir touch chmod ln sed awk find tar unzip make git apt apt-get brew npm pip pip3 uv "
                "cargo go ffmpeg convert magick"),
    ("RISKY", "rm rmdir dd mkfs mount umount iptables systemctl launchctl crontab ssh scp rsync docker kubectl "
              "terraform nc ncat socat telnet nmap kill pkill killall shred"),
    ("DANGEROUS", "curl wget eval exec source . bash sh zsh sudo su doas base64 openssl gpg pkexec runas "
                  "iwr irm iex invoke-webrequest invoke-restmethod invoke-expression"),
):
    for _c in _cmds.split():
        SHELL_TIERS[_c] = _tier

#: Words that look like commands when they start a line of a code block or an inline code span.
KNOWN_COMMANDS: frozenset[str] = frozenset(SHELL_TIERS) | frozenset(
    """python python3 node npx npm pnpm yarn bun deno uv uvx pip pip3 pipx gh git docker podman kubectl helm
    aws gcloud az terraform ansible jq yq ffmpeg ffprobe brew apt apt-get dnf yum pacman apk snap cargo rustc
    go ruby gem perl php java mvn gradle dotnet psql mysql sqlite3 redis-cli mongosh openclaw clawhub claude
    codex gemini code chmod chown export set env printenv curl wget http httpie xh open xdg-open pbcopy
    pbpaste osascript powershell pwsh cmd xattr spctl defaults security secret-tool cmdkey op bw pass
    vercel netlify wrangler fly flyctl heroku railway supabase firebase stripe npm-run tsx ts-node
    playwright puppeteer chromium google-chrome himalaya notmuch mail sendmail tmux screen nohup
    systemctl journalctl launchctl crontab at schtasks reg sc netsh ssh-keygen ssh-add keytool
    pandoc imagemagick yt-dlp whisper rclone s3cmd gsutil mc mshta rundll32 regsvr32 msiexec certutil bitsadmin
    installer hdiutil cscript wscript start-process""".split()
)

#: Interpreters that execute what is piped into them.
SHELL_SINKS: frozenset[str] = frozenset(
    "sh bash zsh dash ksh fish python python2 python3 node perl ruby php iex invoke-expression pwsh "
    "powershell osascript".split()
)
