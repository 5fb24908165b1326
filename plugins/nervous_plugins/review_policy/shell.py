"""Shell detector: one command line at a time (scripts, code blocks, inline code spans).

A tokenizer splits the line into simple commands; each gets a ``shell:<cmd>`` tag, a tier (§5.3)
and the read/write/delete/network tags of what it does. Line-level patterns catch the shapes that
matter regardless of tokenizing (pipe-to-shell, reverse shells, catastrophic deletes).
"""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import Any

from nervous.plugin.toolkit import is_credential_path, normalize_host

from . import rx
from .collector import Collector
from .indicators import KNOWN_COMMANDS, SHELL_SINKS, SHELL_TIERS
from .text import PUBLIC_KEY, URL_RE, snippet, which_alternative

DOWNLOADERS = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch|http|xh|aria2c)"
SINK = r"(?:sudo\s+(?:-\S+\s+)*)?(?:/usr/bin/env\s+|/bin/|/usr/bin/|/usr/local/bin/)?" \
       r"(?:ba|z|da|k|fi)?sh|python[0-9.]*|node|perl|ruby|php|iex|invoke-expression|pwsh|powershell|osascript"

#: an interpreter reading piped data with a local script or module, or inline code that does not execute it
_PREFIX = r"(?:sudo\s+(?:-\S+\s+)*)?(?:/usr/bin/env\s+|/bin/|/usr/bin/|/usr/local/bin/)?"
_PIPED_SINK = (rf"{_PREFIX}(?:(?:ba|z|da|k|fi)?sh|iex|invoke-expression|pwsh|powershell|osascript)\b"
               rf"|{_PREFIX}(?:python[0-9.]*|node|perl|ruby|php)\b"
               r"(?!\s*-c\b\s*['\"]?\s*import\s+json)"
               r"(?!\s+(?:-\S+\s+)*(?:-m\s+[\w.]+|[\w./-]+\.(?:py|js|mjs|cjs|ts|pl|rb|php)\b))"
               r"(?!\s+-[ce]\s+['\"](?![^'\"]*\b(?:exec|eval|system|spawn|compile|Function)\b)[^'\"]*['\"])")
#: harmless stages a download may pass through on its way into a shell
_STAGES = r"(?:tee|cat|sed|tr|head|tail|grep|dos2unix|iconv|gunzip|zcat|gzip\s+-d|base64\s+-d|xxd\s+-r|rev|awk|sort)"
# the module-level expressions other modules import are annotated: a compiled build (setup.py) cannot infer
# their type through the import cycle between the analysers
PIPE_TO_SHELL: Any = rx.compile(
    rf"(?i)\b{DOWNLOADERS}\b[^\n|;]*\|\s*(?:{_PIPED_SINK})"
    rf"|\b{DOWNLOADERS}\b[^\n|;]*(?:\|\s*{_STAGES}\b[^\n|;]*)+\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:/bin/|/usr/bin/)?"
    rf"(?:(?:ba|z|da|k)?sh|iex|invoke-expression)\b"
    rf"|\b(?:mshta|rundll32|regsvr32|msiexec|cscript|wscript)(?:\.exe)?\b[^\n]*?(?:https?|ftp)://"
    rf"|\bscrobj\.dll\b"
    rf"|\b(?:ba|z)?sh\s+<\(\s*{DOWNLOADERS}\b"
    rf"|\b(?:source|\.)\s+<\(\s*{DOWNLOADERS}\b"
    rf"|\b(?:ba|z)?sh\s+-c\s+['\"]?\$\(\s*{DOWNLOADERS}\b"
    rf"|\b(?:eval|exec)\s+['\"]?\$\(\s*{DOWNLOADERS}\b"
    rf"|\biex\s*\(?\s*(?:\(\s*)?(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+(?:system\.)?net\.webclient)"
    rf"|(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n]*\|\s*iex\b"
    rf"|\b(?:python[0-9.]*|node|perl|ruby)\s+<\(\s*{DOWNLOADERS}\b"
    rf"|\b(?:python[0-9.]*)\s+-c\s+['\"][^'\"]*(?:urlopen|requests\.get)[^'\"]*\bexec\b"
    rf"|\b(?:{SINK})\s+(?:-\S+\s+)*-(?:c|e|Command)\s+['\"]?(?:\$\(|`)\s*{DOWNLOADERS}\b"
    rf"|\b(?:iex|invoke-expression)\s*\(?\s*(?:\(\s*)?(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget)\b"
    rf"|\b{DOWNLOADERS}\b[^\n;]*\|\s*(?:source|\.)\s+/dev/stdin\b"
)
ENCODED_TO_SHELL: Any = rx.compile(
    rf"(?i)base64\s+(?:-d|-D|--decode|-di)\b[^\n]*\|\s*(?:{SINK})\b"
    rf"|\|\s*base64\s+(?:-d|-D|--decode)[^\n]*\|\s*(?:{SINK})\b"
    rf"|(?:FromBase64String|frombase64)[^\n]*(?:iex|invoke-expression)"
    rf"|(?:iex|invoke-expression)[^\n]*(?:FromBase64String)"
    rf"|-(?:enc|encodedcommand|e)\s+[A-Za-z0-9+/=]{{40,}}"
    rf"|\b(?:eval|exec)\s+[\"']?\$\(\s*(?:echo|printf)[^\n]*base64\s+(?:-d|-D|--decode)"
    rf"|\b(?:{SINK})\s+(?:-\S+\s+)*-c\s+[\"']?(?:\$\(|`)\s*(?:echo|printf)[^\n]*(?:base64\s+(?:-d|-D|--decode)|xxd\s+-r|\brev\b|\btr\s)"
    rf"|xxd\s+-r\s+-p[^\n]*\|\s*(?:{SINK})\b"
    # a literal run through any decoding stage (tr rot13, rev, xxd, base32, openssl, gunzip…) into a shell
    rf"|\b(?:echo|printf)\b[^\n|]*(?:\|\s*[^|\n]+)*?\|\s*(?:tr|rev|xxd|base32|base64|basenc|openssl|gunzip|zcat|"
    rf"gzip|bzip2|bunzip2|xz|unxz|perl|sed|awk|iconv)\b[^|\n]*(?:\|\s*[^|\n]+)*?\|\s*"
    rf"(?:sudo\s+)?(?:/usr/bin/env\s+|/bin/|/usr/bin/)?(?:(?:ba|z|da|k)?sh|iex|invoke-expression)\s*(?:$|[;&)|]|-s\b|-$)"
)
REVERSE_SHELL: Any = rx.compile(
    r"(?i)/dev/(?:tcp|udp)/[\w.\-\[\]:$]+/\d*|\bbash\s+-i\s*>&|\b(?:nc|ncat|netcat)\b[^\n|;]*\s-[a-z]*e\s*\S*"
    r"(?:sh|bash|cmd)\b|\bsocat\b[^\n]*\bexec:|\bmkfifo\b[^\n]*\b(?:nc|ncat|netcat)\b|"
    r"\bpty\.spawn\s*\(|\bos\.dup2\s*\(\s*\w+\.fileno\(\)|New-Object\s+System\.Net\.Sockets\.TCPClient"
    r"|\bfsockopen\s*\([^\n]*\b(?:exec|shell_exec|system|passthru|proc_open|popen)\s*\("
    r"|\b(?:use\s+Socket|IO::Socket)\b[^\n]*\b(?:exec|system)\s*\(?\s*['\"]?(?:/bin/)?(?:ba|z)?sh\b"
    r"|\bTCPSocket\.(?:new|open)\s*\([^\n]*\b(?:exec|spawn|system|IO\.popen)\b"
    r"|\bnet\.(?:connect|Socket)\b[^\n]*\b(?:spawn|exec)\s*\(\s*['\"](?:/bin/)?(?:ba|z)?sh"
    r"|/inet/tcp/\d+/[\w.-]+/\d+|\btelnet\b[^\n|]*\|\s*(?:/bin/)?(?:ba|z|da)?sh\b"
)
CATASTROPHIC = rx.compile(
    r"(?i)\brm\s+(?:-[a-z]*\s+)*-[a-z]*[rf][a-z]*\s+(?:-[a-z-]+\s+)*(?:--no-preserve-root\s+)?"
    r"(?:/|/\*|~/?\*?|\$HOME/?\*?|\$\{HOME\}/?|\"\$HOME\"/?|/(?:etc|usr|bin|boot|var|lib|home|Users|System)/?)"
    r"(?=\s|$|;|&|\||\"|')"
    r"|\bmkfs(?:\.\w+)?\s+/dev/|\bdd\b[^\n]*\bof=/dev/(?:sd|hd|nvme|disk|rdisk|xvd|vd|mmcblk)"
    r"|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bformat\s+c:|\bdel\s+/[sfq][^\n]*\bc:\\"
    r"|Remove-Item\s+[^\n]*-Recurse[^\n]*\b(?:C:\\|\$env:USERPROFILE|~)\s*(?:$|-)"
    r"|>\s*/dev/(?:sd[a-z]|nvme\d|disk\d)"
    r"|\bfind\s+(?:/|~/?|\$HOME/?|\$\{HOME\}/?|\"\$HOME\"/?)(?=\s)(?![^\n|;&]*\s-(?:i?name|i?path|i?wholename|i?regex|newer|"
    r"[acm]time|[acm]min|size|empty|user|group|perm|prune|maxdepth\s+0)\b)[^\n|;&]*\s(?:-delete\b|-exec\s+(?:sudo\s+)?rm\b)"
)
DISABLE_SECURITY = rx.compile(
    r"(?i)\bxattr\s+(?:-[a-z]*\s+)*-[a-z]*[dc][a-z]*\s+(?:-[a-z]+\s+)*com\.apple\.quarantine"
    r"|\bxattr\s+(?:-[a-z]*\s+)*-[a-z]*c[a-z]*\s+(?!-)\S"
    r"|\bspctl\s+--master-disable|\bspctl\s+--global-disable|\bsetenforce\s+0|\bcsrutil\s+disable"
    r"|Set-MpPreference\s+[^\n]*-Disable|Add-MpPreference\s+[^\n]*-Exclusion|\bufw\s+disable"
    r"|systemctl\s+(?:stop|disable)\s+(?:firewalld|apparmor|auditd)|\bSet-ExecutionPolicy\s+(?:Bypass|Unrestricted)"
    r"|defaults\s+write\s+[^\n]*LSQuarantine|\bnetsh\s+advfirewall\s+set\s+\w+\s+state\s+off"
    # passwordless sudo for every command, written into the sudoers configuration
    r"|NOPASSWD:\s*ALL\b[^\n]*(?:>>?|\btee\b)[^\n]*/etc/sudoers|(?:>>?|\btee\b)[^\n]*/etc/sudoers[^\n]*NOPASSWD:\s*ALL\b"
    # a set-user-id shell, an open firewall, no address-space randomisation, no password after the screen
    # saver, privacy permissions granted behind the user's back, a library loaded into every program
    r"|\bchmod\s+(?:[ugoa]*\+[rwx]*s[rwx]*|[4-7][0-7]{3})\s+\S*/(?:ba|z|da|k)?sh\b"
    r"|\biptables\s+(?:-t\s+\w+\s+)?-P\s+(?:INPUT|FORWARD)\s+ACCEPT"
    r"|\b0\b[^\n]*randomize_va_space|randomize_va_space[^\n]*=\s*0\b"
    r"|askForPassword\s+(?:-int\s+|-bool\s+)?(?:0|false|no)\b"
    r"|TCC\.db[^\n]*\b(?:INSERT|UPDATE|REPLACE)\b|\b(?:INSERT|UPDATE|REPLACE)\b[^\n]*TCC\.db"
    r"|(?:>>?|\btee\s+(?:-a\s+)?)\s*/etc/ld\.so\.preload"
)
#: a dot-named file under a temporary folder (``/tmp/.cache/.x``)
_HIDDEN_TEMP_FILE = rx.compile(r"(?:/tmp|/var/tmp|/dev/shm|\$TMPDIR|\$\{TMPDIR\})/(?:[\w.-]+/)*\.[\w-][\w.-]*")
#: macOS's screenshot tool told not to play its sound
_SILENT_SCREENSHOT = rx.compile(r"\bscreencapture\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*x")
#: files that hold what the user typed at a shell or a REPL
_HISTORY_NAME = r"\.(?:bash|zsh|sh|ksh|python|node_repl|psql|mysql|sqlite|irb|lesshst)_?history\b"
_HISTORY_FILE = rx.compile(rf"(?i)(?:^|/){_HISTORY_NAME}|(?:^|/)fish_history\b|ConsoleHost_history\.txt")
#: a public key the skill itself carries, appended to the account's authorized keys: a standing way in for whoever
#: holds its private half (the user's own key copied to a server names no key literal)
KEY_PLANT = rx.compile(rf"{PUBLIC_KEY}[^\n]*"
                       r"(?:>>?|\btee\s+(?:-a\s+)?)\s*['\"]?\S*authorized_keys")
#: the record of the commands run, erased (covering tracks): a history file removed, emptied or linked to nothing
_HISTORY_ERASE = rx.compile(
    rf"(?i)\b(?:rm|shred|srm|unlink|truncate)\b[^\n;&|]*?(?:^|[\s/'\"=]){_HISTORY_NAME}"
    r"|\bln\s+-[a-z]*s[a-z]*\s+/dev/null\s+\S*_history\b"
    rf"|(?:^|[;&|]\s*|:\s*|/dev/null\s*|echo\s+(?:-n\s+)?(?:''|\"\")?\s*)>\s*['\"]?\S*{_HISTORY_NAME}")
#: the session's history cleared or no longer recorded: also what a careful user does before typing a secret
_HISTORY_OFF = rx.compile(r"\bhistory\s+-c\b|\bunset\s+HISTFILE\b|\bHISTFILE=/dev/null\b|\bexport\s+HISTSIZE=0\b"
                          r"|\bset\s+\+o\s+history\b")
#: a cryptocurrency miner started (its program at a command's place, or a mining pool's address)
_MINER = rx.compile(
    r"(?i)(?:^|[;&|(]\s*|\b(?:nohup|exec|sudo|setsid|nice(?:\s+-n\s*-?\d+)?|screen\s+-\w+|timeout\s+\d+)\s+)"
    r"(?:\S*/)?(?:xmrig|xmr-stak|cpuminer(?:-multi)?|minerd|cgminer|bfgminer|ethminer|nbminer|lolminer|nanominer|"
    r"phoenixminer|srbminer\S*)\b|stratum\+(?:tcp|ssl|tls)://")
#: a DNS lookup whose name starts with data the line computes (``nslookup $chunk.attacker.test``): the query
#: itself carries the data to whoever runs the domain's name server
_DNS_CARRIES = rx.compile(r"(?i)\b(?:nslookup|dig|host|drill|resolvectl\s+query)\s+(?:[-+]\S+\s+)*['\"]?"
                          r"(?:\$\{?\w+\}?|\$\([^)]*\)|`[^`]*`)\.[a-z0-9-]+\.[a-z]")
#: what such a name is built from: the environment, a file's contents, an encoding
_DNS_DATA = rx.compile(r"(?i)\b(?:env|printenv|cat|base64|base32|xxd|od|hexdump)\b|/etc/passwd")
#: credentials put into a public or remote place by the tools that publish files
_GIST = rx.compile(r"(?i)\bgh\s+gist\s+create\b")
_GIT_ADD = rx.compile(r"\bgit\s+add\s+([^;&|\n]+)")
_PUSH_TO_ADDRESS = rx.compile(r"\bpush\b[^\n;&|]*\s(?:https?://|ssh://|git@)")
#: a literal each of :func:`_technique_shapes`' expressions needs (one expression in the line set pass: their
#: own automata are larger than the shapes are common)
_TECHNIQUE_GATE = rx.compile(r"(?i)hist|xmr|miner|stratum|nslookup|dig|host|drill|resolvectl|gist|git|wevtutil|eventlog"
                             r"|/var/log|openssl\s+(?:enc|aes)|gpg\s|7z\s+a\s|zip\s[^\n]*-[pe]")
#: files encrypted and the originals deleted, over the user's home folder (ransomware's shape)
_ENCRYPT_THEN_DELETE = rx.compile(
    r"(?i)(?:\bopenssl\s+(?:enc|aes\S*)\b|\bgpg\s+(?:[^\n]*\s)?(?:-c|--symmetric|-e|--encrypt)\b|\b7z\s+a\s+[^\n]*-p|"
    r"\bzip\s+[^\n]*-(?:P|e)\b)[^\n]*(?:\brm\b|-delete\b|\bshred\b|--remove-files|-sdel\b)")
_HOME_WIDE = rx.compile(r"\bfind\s+(?:~|\$HOME|\$\{HOME\}|\"\$HOME\"|/home|/Users)(?:/\w+)*/?\s|(?:~|\$HOME)/\*")
#: the system's logs erased: Windows event logs cleared, the log folder emptied, login records truncated
_LOG_WIPE = rx.compile(r"(?i)\bwevtutil(?:\.exe)?\s+(?:cl|clear-log)\b|\bClear-EventLog\b"
                       r"|\brm\s+(?:-[a-z]+\s+)*/var/log/?(?:\*|\s|$)"
                       r"|(?:^|[;&|]\s*|:\s*|echo\s+(?:-n\s+)?(?:''|\"\")?\s*)>\s*/var/log/(?:auth\.log|secure|wtmp|btmp|lastlog)\b")
#: a template of a credential file, not one
SAMPLE_FILE = rx.compile(r"(?i)example|sample|template|\.dist\b")


def holds_secrets(path: str) -> bool:
    """A credential file (spec §5.2), not a template of one (``.env.example``)."""
    return is_credential_path(path) and not SAMPLE_FILE.search(path)


TLS_OFF = rx.compile(r"(?i)(?:^|\s)(?:-k|--insecure|--no-check-certificate)(?=\s|$)|NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*['\"]?0"
                     r"|GIT_SSL_NO_VERIFY|PYTHONHTTPSVERIFY\s*=\s*0|--trusted-host\b")
UPLOAD = rx.compile(r"(?i)(?:^|\s)(?:(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?|-F|--form)"
                    r"(?:\s+|=)['\"]?(?:[\w-]+=)?@[^\s'\"]+|(?:-T|--upload-file)(?:\s+|=)['\"]?[^\s'\"-][^\s'\"]*)")
CMD_OUTPUT_IN_REQUEST = rx.compile(
    r"(?i)\b(?:curl|wget)\b[^\n]*\$\(\s*(?:cat|whoami|hostname|id|uname|env|printenv|ls|pwd|ifconfig|ip\s+a)"
    r"|\b(?:cat|env|printenv|whoami|hostname|uname|ls)\b[^\n|]*\|\s*(?:curl|wget|nc|ncat)\b[^\n]*"
    r"(?:-d\s*@-|--data(?:-binary)?\s*@-|-T\s*-|-F\s*\S*=@-|\s\d{2,5}\b)"
)
#: a command Windows runs later: a scheduled task's ``/tr`` and a Run key's ``/d``
_WINDOWS_START_COMMAND = rx.compile(r"(?i)\bschtasks(?:\.exe)?\s+/create\b[^\n]*\s/tr\s"
                                    r"|\breg(?:\.exe)?\s+add\s+[^\n]*\\CurrentVersion\\Run(?:Once)?\b[^\n]*\s/d\s")
#: a shell's start-up files (``~/.<name>``): what is written there runs in every terminal the user opens
RC_NAMES = r"bashrc|zshrc|profile|bash_profile|zprofile|bash_login|zshenv|zlogin"
_HOME = r"(?:~|\$HOME|\$\{HOME\}|/home/\w+|/Users/\w+|/root)"
STARTUP_FILE = rx.compile(rf"(?i){_HOME}?/?\.(?:{RC_NAMES})\b|config/fish/config\.fish")
PERSIST_PATH = rx.compile(
    rf"(?i){_HOME}/\.(?:{RC_NAMES}|config/fish/config\.fish)|/etc/(?:profile|bash\.bashrc|zshrc|rc\.local|crontab|cron\.)"
    r"|Library/Launch(?:Agents|Daemons)|/etc/systemd/|\.config/systemd/user|\.config/autostart|/etc/sudoers"
    r"|\.ssh/authorized_keys"
    r"|CurrentVersion\\+Run|\.git/hooks/|core\.hooksPath|/etc/init\.d/|Microsoft\\+Windows\\+Start Menu\\+Programs\\+Startup"
)
AGENT_STATE = rx.compile(
    r"(?i)(?:^|[/\s\"'`~(]|\b)(SOUL\.md|MEMORY\.md|AGENTS\.md|IDENTITY\.md|USER\.md|HEARTBEAT\.md|TOOLS\.md|"
    r"openclaw\.json|clawdbot\.json|\.openclaw/(?:skills|workspace|agents)/|\.claude/(?:skills|settings[\w.]*\.json|CLAUDE\.md)|"
    r"CLAUDE\.md|\.clawhub/|\.clawdhub/|\.skill-evolver/|\.cursor/rules|\.codex/)"
)
SECRET_STORE_CMDS = rx.compile(
    r"(?i)\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain|export)\b|"
    r"\bsecret-tool\s+(?:lookup|search)\b|\bcmdkey\s+/list\b|\bvaultcmd\b|\bkeyring\s+get\b|"
    r"\bpass\s+show\b|\bgpg\s+(?:-d|--decrypt)\b|\bop\s+(?:read|item\s+get)\b|\bbw\s+(?:get|list)\b|"
    r"\blpass\s+show\b|\bvault\s+(?:kv\s+get|read)\b|\baws\s+secretsmanager\s+get-secret-value|"
    r"\bgcloud\s+secrets\s+versions\s+access|\bkubectl\s+get\s+secrets?\b|\bgh\s+auth\s+token\b"
)
HARVEST_STORE_CMDS = rx.compile(
    r"(?i)\bsecurity\s+(?:dump-keychain|find-generic-password\s+[^\n]*-w|find-internet-password)|\bcmdkey\s+/list"
    r"|\bsecret-tool\s+search|\bvaultcmd\b|\bgh\s+auth\s+token\b"
)
#: a dialog that asks for the user's password (the macOS stealers' fake system prompt, and its cousins)
PASSWORD_DIALOG = rx.compile(r"(?i)display\s+dialog\b[^\n]*\bhidden\s+answer|\bGet-Credential\b|PromptForCredential"
                             r"|\b(?:zenity|kdialog|yad)\b[^\n]*--password")
PRIV_CMD = rx.compile(r"(?i)(?:^|[;&|(`]\s*|\$\(\s*)(?:sudo|su|doas|pkexec|runas)(?=\s|$)|\bStart-Process\b[^\n]*-Verb\s+RunAs")
SYSTEM_WRITE = rx.compile(r"(?i)(?:>>?|\btee\s+(?:-a\s+)?|\b(?:cp|mv|install|ln)\s+[^\n]*\s)\s*/(?:etc|usr|bin|sbin|boot|lib|System|Library)/")
ENV_DUMP = rx.compile(r"(?i)(?:^|[;&|(`]\s*|\$\(\s*)(?:env|printenv|export\s+-p|set)\s*(?:$|[|>;)&`])"
                      r"|\bGet-ChildItem\s+env:|\bgci\s+env:|\bdir\s+env:|\bcompgen\s+-e")
CONTENT_READ = rx.compile(r"(?i)(?:^|[;&|(`]\s*|\$\(\s*)(?:cat|base64|xxd|od|strings|head|tail|less|more|tar|zip|7z|"
                          r"cp|scp|rsync|curl|wget|nc|openssl|gpg|python3?|node|sqlite3|find|grep|awk|sed|type|"
                          r"Get-Content|gc)\b|<\s*~|@~|@\$HOME")
#: credential categories no skill needs to read the contents of in order to do its job
NEVER_LEGIT_CATEGORIES = {"ssh-key", "browser", "wallet", "keychain", "shadow", "gnupg", "password-dialog"}


SENDERS = rx.compile(r"(?i)\b(?:curl|wget|nc|ncat|netcat|socat|http|xh|ftp|tftp|dig|nslookup|host|ping)\b")


#: what carries a folder or archive away after it was staged: a push to a remote given by URL, an upload
STAGED_SEND = rx.compile(r"(?i)\bgit\s+push\s+(?:-\S+\s+)*(?:https?://|git@|ssh://)"
                         r"|\b(?:curl|wget)\b[^\n]*(?:\s-T\s|--upload-file|\s-F\s|--form|\s-d\s*@|--data-binary\s*@)")


def _sent_in_line(line: str, path: str) -> bool:
    """The contents of ``path`` go into a network request on this line (not an identity or config option)."""
    staged = rx.search(rf"(?i)\b(?:cp|rsync|tar|zip|7z|ditto)\b[^|;&\n]*{re.escape(path)}", line)
    if staged and STAGED_SEND.search(line, staged.end()):
        return True
    if not SENDERS.search(line) and not rx.search(r"(?i)\b(?:scp|rsync|sftp|rclone)\b[^\n]*\s[\w.-]+@?[\w.-]+:", line):
        return False
    esc = re.escape(path)
    if rx.search(rf"(?i)(?:\s-i|--identity|--key|--cert|--cacert|--netrc-file|\s-K|--config|\s-F|IdentityFile)\s*=?\s*['\"]?{esc}",
                 line):
        return False
    return bool(rx.search(rf"(?:\$\(|`)[^)`]*{esc}|\b(?:cat|tar|zip|base64|gzip|xxd|openssl|head|tail)\b[^|\n]*{esc}[^|\n]*\|"
                          rf"|@['\"]?{esc}|<\s*['\"]?{esc}|\b(?:scp|rsync|sftp|rclone\s+(?:copy|copyto|sync|move))\s+(?:-\S+\s+)*['\"]?{esc}"
                          rf"|--(?:post|body|upload)-file[= ]['\"]?{esc}|\s-T\s+['\"]?{esc}", line))


def credential_category(path: str) -> str:
    p = path.lower()
    for cat, pat in (("ssh-key", r"\.ssh|id_rsa|id_ed25519|id_ecdsa|id_dsa"), ("cloud", r"\.aws|gcloud|\.azure|\.kube"),
                     ("registry", r"\.docker|\.npmrc|\.pypirc|\.netrc|git-credentials"), ("gnupg", r"\.gnupg"),
                     ("browser", r"login data|cookies|logins\.json|key[34]\.db|chrome|firefox|brave"),
                     ("wallet", r"wallet|metamask|phantom|exodus|electrum|solflare"), ("keychain", r"keychain"),
                     ("shadow", r"/etc/shadow"), ("agent", r"openclaw|clawdbot"), ("env", r"\.env"),
                     ("key-file", r"\.pem|\.key|\.p12|\.pfx")):
        if rx.search(pat, p):
            return cat
    return "other"


DESTRUCTIVE_SUBCOMMANDS = {"delete", "remove", "rm", "destroy", "drop", "purge", "uninstall", "wipe", "prune",
                           "kill", "terminate", "trash", "erase", "clear", "reset", "revoke", "archive-delete"}
PKG_INSTALL = {"install", "add", "i", "ci", "update", "upgrade", "sync", "get"}
PKG_MANAGERS = {"pip", "pip3", "pipx", "npm", "pnpm", "yarn", "bun", "brew", "apt", "apt-get", "dnf", "yum",
                "pacman", "apk", "snap", "cargo", "go", "gem", "uv", "conda", "mamba", "poetry", "npx", "uvx",
                "choco", "winget", "scoop", "port", "composer", "dotnet", "deno", "clawhub", "openclaw"}
WRAPPERS = {"sudo", "doas", "env", "nohup", "time", "command", "builtin", "nice", "stdbuf", "timeout", "xargs",
            "exec", "then", "do", "else", "if", "while", "until", "!", "{", "(", "caffeinate", "unbuffer", "strace"}
NOT_ENV = {"HOME", "PATH", "PWD", "OLDPWD", "USER", "SHELL", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "TERM",
           "HOSTNAME", "RANDOM", "IFS", "UID", "EUID", "PPID", "SECONDS", "LINENO", "BASH_SOURCE", "OSTYPE",
           "DISPLAY", "EDITOR", "VISUAL", "PAGER", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
           "LOGNAME", "SHLVL", "COLUMNS", "LINES", "BASH_REMATCH", "PIPESTATUS", "OPTARG", "OPTIND", "REPLY",
           "FUNCNAME", "BASH_VERSION", "ZSH_VERSION", "HOSTTYPE", "MACHTYPE", "PS1", "PS2", "CI"}
ENV_REF = rx.compile(r"\$\{?([A-Z][A-Z0-9_]{1,})\b|%([A-Z][A-Z0-9_]{2,})%|\$env:([A-Za-z_][\w]*)")
OPERATORS = {"|", "||", "&&", ";", "&", ";;", "|&", "(", ")", "\n"}


#: shell tokenizing (``shell_tokens``): each character that ends a plain run of a word, and each that ends a
#: run inside double quotes, marked as NUL in a translated copy of the line (a NUL of the line itself
#: becomes \x01 there), so the next one is a ``str.find`` away
_TOK_SPACE = " \t\r\n"
_TOK_PUNCT = "|&;()<>"
_TOK_MARK = str.maketrans({**dict.fromkeys(" \t\r\n#'\"\\|&;()<>", "\0"), "\0": "\x01"})
_TOK_DQ_MARK = str.maketrans({'"': "\0", "\\": "\0", "\0": "\x01"})
#: the tokens of a line with no quote, escape or comment mark: runs of operator characters and runs of the
#: rest between whitespace (two character classes: linear in ``re``, and faster there than the general loop)
_PLAIN_TOKEN = rx.compile_listing(r"[|&;()<>]+|[^ \t\r\n|&;()<>]+")


def shell_tokens(line: str) -> list[str]:
    """The tokens ``shlex.shlex(line, posix=True, punctuation_chars="|&;()<>")`` gives with
    ``whitespace_split`` and ``#`` comments; raises ``ValueError`` where shlex does (an unclosed quote,
    a trailing escape).

    Linear: plain runs are sliced between special characters found with ``str.find`` on a marked copy,
    not read character by character through a stream as shlex does (about 5x slower).
    """
    if "'" not in line and '"' not in line and "\\" not in line and "#" not in line:
        return _PLAIN_TOKEN.findall(line)
    marked = line.translate(_TOK_MARK)
    dq_marked = ""
    out: list[str] = []
    n = len(line)
    i = 0
    while True:
        while i < n and line[i] in _TOK_SPACE:
            i += 1
        if i >= n:
            return out
        ch = line[i]
        if ch == "#":
            j = line.find("\n", i)
            if j < 0:
                return out
            i = j + 1
            continue
        if ch in _TOK_PUNCT:
            j = i + 1
            while j < n and line[j] in _TOK_PUNCT:
                j += 1
            out.append(line[i:j])
            i = j
            continue
        # a word: plain runs, quoted parts and escapes, until whitespace, a comment or punctuation
        parts: list[str] = []
        quoted = False
        while True:
            j = marked.find("\0", i)
            if j < 0:
                j = n
            if j > i:
                parts.append(line[i:j])
                i = j
            if i >= n:
                break
            ch = line[i]
            if ch in _TOK_SPACE or ch in _TOK_PUNCT:
                break
            if ch == "#":
                j = line.find("\n", i)
                i = n if j < 0 else j + 1
                break
            if ch == "\\":
                if i + 1 >= n:
                    raise ValueError("No escaped character")
                parts.append(line[i + 1])
                i += 2
                continue
            quoted = True
            if ch == "'":
                j = line.find("'", i + 1)
                if j < 0:
                    raise ValueError("No closing quotation")
                parts.append(line[i + 1:j])
                i = j + 1
                continue
            # double quotes: a backslash escapes only a quote or a backslash
            if not dq_marked:
                dq_marked = line.translate(_TOK_DQ_MARK)
            i += 1
            while True:
                j = dq_marked.find("\0", i)
                if j < 0:
                    raise ValueError("No closing quotation")
                parts.append(line[i:j])
                if line[j] == '"':
                    i = j + 1
                    break
                if j + 1 >= n:
                    raise ValueError("No escaped character")
                nxt = line[j + 1]
                if nxt not in '\\"':
                    parts.append("\\")
                parts.append(nxt)
                i = j + 2
        token = "".join(parts)
        if token or quoted:
            out.append(token)


def _tokens(line: str) -> list[str]:
    try:
        return shell_tokens(line)
    except ValueError:
        return line.split()


def _split_commands(tokens: list[str]) -> list[list[str]]:
    cmds: list[list[str]] = [[]]
    for t in tokens:
        if t in OPERATORS or (t and not t.strip("|&;()")):  # an operator, or a run of operator characters
            cmds.append([])
        else:
            cmds[-1].append(t)
    return [c for c in cmds if c]


def _first_word(cmd: list[str]) -> tuple[str, list[str], bool]:
    """(command, args, via_privilege) after assignments and wrappers."""
    priv = False
    i = 0
    while i < len(cmd):
        w = cmd[i]
        if "=" in w and _ASSIGNED_WORD.match(w):
            i += 1
            continue
        base = w.rsplit("/", 1)[-1].lower()
        if base in WRAPPERS:
            if base in ("sudo", "doas"):
                priv = True
            i += 1
            while i < len(cmd) and cmd[i].startswith("-") and base in ("sudo", "doas", "env", "nice", "timeout",
                                                                         "xargs", "stdbuf"):
                i += 1
            if base == "timeout" and i < len(cmd) and rx.match(r"^\d", cmd[i]):
                i += 1
            continue
        return base, cmd[i + 1:], priv
    return "", [], priv


def _strip_headers(line: str) -> str:
    """A request line without its header and basic-auth arguments (secrets there go to their own service)."""
    if "-" not in line:  # both options start with a dash: nothing to strip
        return line
    line = rx.sub(r"(?i)(?:-H|--header)\s*(?:\"[^\"]*\"|'[^']*'|\S+)", " ", line)
    return rx.sub(r"(?i)(?:-u|--user|--oauth2-bearer)\s*(?:\"[^\"]*\"|'[^']*'|\S+)", " ", line)


def _is_secret_name(name: str) -> bool:
    from nervous.plugin.toolkit import is_secret_env

    return is_secret_env(name) and name not in NOT_ENV


def in_data_string(line: str, pos: int) -> bool:
    """Whether ``pos`` sits inside a quoted argument that is data (a grep pattern, an echo), not code."""
    quote = None
    opened = -1
    i = 0
    while i < pos and i < len(line):
        ch = line[i]
        if ch == "\\" and quote != "'":
            i += 2
            continue
        if quote is None and ch in "'\"":
            quote, opened = ch, i
        elif quote == ch:
            quote = None
        i += 1
    if quote is None:
        return False
    before = line[:opened].rstrip()
    return not rx.search(r"(?i)(?:\b(?:ba|z|da|k)?sh|\beval|\bsu|\bssh\s+\S+|\bexec|\bsource|\bpowershell|\bpwsh|"
                         r"-c|-Command|\bxargs\s+(?:-\S+\s+)*(?:ba)?sh|\$\(|`|"
                         r"\b(?:osascript|node|perl|ruby|php|python[0-9.]*)\s+(?:-\S+\s+)*-[erc]|do\s+shell\s+script|"
                         r"-ArgumentList\s*@?\(?|\b(?:system|exec|execSync|spawn|spawnSync|popen|Popen|shell_exec|passthru|"
                         r"check_output|getoutput|Command|%x)\s*[({]\s*\[?|\b[gmn]?awk(?:\s+-\S+)*)$", before)


_SECRET_VAR = rx.compile(r"\$\{?([A-Z][A-Z0-9_]+)")
_ASSIGNED_WORD = rx.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_COMMAND_WORD = rx.compile(r"^[\w.+-]+$")
_LOWER_COMMAND_WORD = rx.compile(r"^[a-z][\w.+-]*$")
ASSIGNMENT = rx.compile(r"(?:^|[;&]\s*)(?:export\s+|local\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)="
                        r"('[^'\n]*'|\"[^\"\n]*\"|[^\s;&|]*)")
VARIABLE = rx.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")


def unsplit(line: str) -> str:
    """Undo the cheap ways of splitting a command word: empty quotes, backslashes, ``${IFS}``.

    Each rewrite needs a doubled quote, a backslash or ``IFS`` in the line; a line without it is left
    as it is without searching (most lines of a script)."""
    if "''" in line or '""' in line:  # both quote rewrites match a doubled quote
        line = rx.sub(r"(?<=[\w/.:-])(?:''|\"\")+(?=[\w/.:-])", "", line)
        line = rx.sub(r"([\"'])([\w/.:-]*)\1\1([\w/.:-]*)\1", r"\1\2\3\1", line)  # "cu""rl" -> "curl"
    if "\\" in line:
        line = rx.sub(r"(?<=[a-z])\\(?=[a-z])", "", line)
    return rx.sub(r"\$\{IFS(?:[%#][^}]*)?\}|\$IFS\b", " ", line) if "IFS" in line else line


def resolve_variables(line: str, variables: dict[str, str]) -> str:
    """Substitute values assigned earlier in the same script (statically, as text).

    A line that names none of the assigned variables is returned as it is: every reference would be
    replaced by itself (most references are to the environment or a loop variable), and the binding's
    substitution with a function is slow."""
    if not variables or "$" not in line:  # every reference starts at a "$"
        return line
    refs = [(s[0][0], s[0][1], line[s[1][0]:s[1][1]] if s[1][0] >= 0 else line[s[2][0]:s[2][1]])
            for s in VARIABLE.spans(line)]
    if not any(name in variables for _, _, name in refs):
        return line
    out: list[str] = []
    last = 0
    for start, end, name in refs:  # what ``VARIABLE.sub`` would do, from the matches already found
        out.append(line[last:start])
        out.append(variables.get(name, line[start:end]))
        last = end
    out.append(line[last:])
    return "".join(out)


def remember_assignments(line: str, variables: dict[str, str]) -> None:
    if "=" not in line:
        return
    for name, value in ASSIGNMENT.findall(unsplit(line)):
        if value[:1] in "'\"" and value[-1:] == value[:1]:
            value = value[1:-1]
        if len(value) <= 300 and "$(" not in value and "`" not in value:
            variables[name] = resolve_variables(value, variables)


def hidden_shapes(c: Collector, file: str, lineno: int, line: str, variables: dict[str, str],
                  *, executable: bool = True) -> None:
    """Run the download-to-shell and reverse-shell shapes on the line with its splitting undone."""
    if ";" in line and "=" in line and "$" in line:  # ``a=cu; b=rl; $a$b …``: the line's own assignments first
        variables = dict(variables)
        remember_assignments(line, variables)
    if not (variables and "$" in line) and not ("''" in line or '""' in line or "\\" in line or "IFS" in line):
        return
    plain = resolve_variables(unsplit(line), variables)
    if plain == line:
        return
    act = None if executable else "review"
    for rule, pattern in (("NV-EXEC-001", PIPE_TO_SHELL), ("NV-EXEC-002", ENCODED_TO_SHELL),
                          ("NV-EXEC-005", REVERSE_SHELL)):
        m = pattern.search(plain)
        if m and not (pattern.search(line)):
            urls = [u.group(0) for u in URL_RE.finditer(plain)]
            c.hit(rule, file, lineno, snippet(line), action=act, deobfuscated=snippet(plain, m.start(), m.end()),
                  hosts=[normalize_host(u) for u in urls], urls=urls)
            c.fact("download_exec" if rule == "NV-EXEC-001" else "encoded_exec", file, lineno)
            c.flags.add("obfuscation")


def quote(s: str) -> str:
    """One shell word for ``s`` (quoted unless it is plain; its own single quotes dropped)."""
    return s if rx.match(r"^[\w@%+=:,./-]+$", s) else "'" + s.replace("'", "") + "'"


def echoed(c: Collector, file: str, lineno: int, text: str, into: str) -> None:
    """Text a program writes into a file (``into``: ``>> ~/.bashrc``) or feeds a command on its standard input
    (``| crontab -``), read as the shell reads the same ``echo '<line>' <into>``, line by line."""
    for line in text.split("\n"):
        if line.strip():
            analyze_line(c, file, lineno, f"echo {quote(line.replace('${X}', '$X'))} {into}")


#: a PowerShell cmdlet (``Verb-Noun`` with one of its common verbs) and Windows' own system tools: a block
#: without a language that starts with one is a command, as one that starts with ``curl`` is
_CMDLET = rx.compile(r"(?:get|set|new|remove|invoke|start|stop|clear|add|copy|move|out|write|import|export|install|"
                     r"uninstall|enable|disable|expand|register|unregister|test|send|restart|update)-[a-z]+")
_WINDOWS_TOOLS = frozenset({"wevtutil", "vssadmin", "bcdedit", "wmic", "curl.exe"})


def looks_like_command(text: str, extra: frozenset[str] | set[str] = frozenset()) -> bool:
    s = text.strip().lstrip("$>#% ").strip()
    if not s:
        return False
    word = s.split()[0].rsplit("/", 1)[-1].lower()
    return word in KNOWN_COMMANDS or word in extra or (word.startswith("./") and len(word) > 2) or \
        word in _WINDOWS_TOOLS or "-" in word and _CMDLET.fullmatch(word) is not None


_PROCESS_SCOPE = rx.compile(r"(?i)-Scope\s+Process\b")
_CRONTAB_PIPE = rx.compile(r"(?i)\|\s*(?:sudo\s+)?crontab\b")
_TLS_TOOL = rx.compile(r"(?i)\b(curl|wget|git|pip|npm|export|node|set)\b")
_HTTP_TOOL = rx.compile(r"(?i)\b(curl|wget|http|xh|nc|ncat)\b")
_RAW_SOCKET = rx.compile(r"(?i)(?:\|\s*(?:nc|ncat|netcat|socat)\b[^\n|]*\s(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z][\w.-]*\.[a-z]{2,})\s+\d+|"
                         r"\b(?:nc|ncat|netcat)\b[^\n|<]*\s\d+\s*<\s*\S+|>\s*/dev/tcp/)")
_WRITES = rx.compile(r">>?|\btee\b|\b(?:cp|mv|ln|install|cat\s*>|echo|printf|git\s+config|chmod)\b")
_ENV_FILE_READ = rx.compile(r"(?i)\b(?:cat|source|\.|grep|head|tail|less|more|export|cp|base64|xargs|read)\b")
_ECHO_SECRET = rx.compile(r"(?i)\b(?:echo|printf|print|console\.log)\s+[^\n|>]*\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSW)")
_CHMOD_OPEN = rx.compile(r"(?i)\bchmod\s+(?:-[a-zA-Z]+\s+)*(?:0?777|0?666|a\+w|o\+w|ugo\+w|a\+rwx|o\+rwx)\s+(\S+)")
_SCHEDULE = rx.compile(r"(?i)\bcrontab\s+(?!-l\b)|\bsystemctl\s+(?:--user\s+)?enable\b|\blaunchctl\s+(?:load|bootstrap|submit)\b"
                       r"|\bschtasks\s+/create\b|\breg\s+add\s+[^\n]*\\Run\b|\bat\s+now\b|\bNew-ScheduledTask")
_DOTENV = rx.compile(r"(?i)(?:^|[^\w.-])\.env(?:\.[\w-]+)?(?=$|[\s'\"`;|)])")
_CRED_PATH = rx.compile(r"(?:~|\$HOME|\$\{HOME\}|/home/\w+|/Users/\w+|/root)?/?[\w./-]*(?:\.ssh|\.aws|\.gnupg|"
                        r"\.kube|\.docker|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.azure|gcloud|Keychains|"
                        r"Login Data|logins\.json|key[34]\.db|wallet\.dat|\.openclaw|\.clawdbot|id_rsa|id_ed25519|"
                        r"/etc/shadow|Chrome/[\w ]+/Cookies|Firefox/Profiles/\S+/cookies\.sqlite)[\w./-]*")
#: a cloud tool's whole credentials folder: its files are credential locations (spec §5.2), so the folder copied to
#: another machine carries them (read alone, "ls ~/.aws", it names no secret)
_CRED_FOLDER = rx.compile(r"(?:~|\$HOME|\$\{HOME\}|/home/\w+|/Users/\w+|/root)/(?:\.aws|\.kube|\.config/gcloud)/?")
_QUIETED = rx.compile(r">\s*/dev/null|\|\s*(?:base64|sha|md5|wc|grep|cut|head|tr|jq|cat|openssl|gh|docker|kubectl)")
_PASSWORD_ARG = rx.compile(r"(?i)--password[= ]['\"]?(?!\$|\{|<|\*|x{3})[^\s'\"]{3,}")
_REDIRECT = rx.compile(r"(?<![<>&0-9])(?:\d?>>?|&>>?)\s*([^\s;&|<>]+)")
#: the expressions :func:`analyze_line` searches over the whole line, tried in one RE2 set pass first
_LINE_RULES = rx.Prefilter([_CRONTAB_PIPE, PIPE_TO_SHELL, ENCODED_TO_SHELL, REVERSE_SHELL, CATASTROPHIC,
                            DISABLE_SECURITY, TLS_OFF, _TLS_TOOL, UPLOAD, CMD_OUTPUT_IN_REQUEST, _HTTP_TOOL,
                            _RAW_SOCKET, SECRET_STORE_CMDS, PASSWORD_DIALOG, ENV_DUMP, PRIV_CMD, SYSTEM_WRITE,
                            PERSIST_PATH, _WRITES, AGENT_STATE, _SCHEDULE, _DOTENV, _ENV_FILE_READ, _CRED_PATH, KEY_PLANT,
                            ENV_REF, _ECHO_SECRET, _QUIETED, _PASSWORD_ARG, _CHMOD_OPEN, _REDIRECT, _SECRET_VAR,
                            _TECHNIQUE_GATE])
#: the expressions one of which every finding of :func:`_line_shapes` needs (the others it searches, such as
#: ``_WRITES`` or ``_HTTP_TOOL``, only ever count together with one of these)
_SHAPE_GROUP = _LINE_RULES.group([PERSIST_PATH, PIPE_TO_SHELL, ENCODED_TO_SHELL, REVERSE_SHELL, CATASTROPHIC,
                                  DISABLE_SECURITY, TLS_OFF, UPLOAD, CMD_OUTPUT_IN_REQUEST, _RAW_SOCKET,
                                  SECRET_STORE_CMDS, PASSWORD_DIALOG, ENV_DUMP, PRIV_CMD, SYSTEM_WRITE, AGENT_STATE,
                                  _SCHEDULE, _DOTENV, _CRED_PATH, ENV_REF, _ECHO_SECRET, _PASSWORD_ARG, _CHMOD_OPEN,
                                  KEY_PLANT])


def _technique_shapes(c: Collector, file: str, lineno: int, line: str, act: str | None) -> None:
    """Techniques of spec §9 that no skill's own job explains (part of :func:`_analyze_line`, on lines the set
    pass found one of their literals on): tracks covered, logs erased, files held to ransom, a miner started,
    data carried in DNS names, credentials published."""
    quoted_at = functools.partial(in_data_string, line)
    m = _HISTORY_ERASE.search(line)
    off = _HISTORY_OFF.search(line) if m is None else None
    hit = m or off
    if hit:
        # the file erased leaves no trace of what ran; the session's history switched off alone is also a privacy
        # habit (a token typed next), so a person checks it
        c.hit("NV-PRIV-002", file, lineno, snippet(line, hit.start(), hit.end()), column=hit.start() + 1,
              action=act or ("review" if off or quoted_at(hit.start()) else None),
              erases="the shell history file" if m else "the session's command history")
    m = _LOG_WIPE.search(line)
    if m and not quoted_at(m.start()):
        c.hit("NV-PRIV-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, action=act,
              erases="the system's logs")
    m = _ENCRYPT_THEN_DELETE.search(line)
    if m and _HOME_WIDE.search(line) and not quoted_at(m.start()):
        c.hit("NV-DESTR-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, action=act,
              destroys="the user's files, encrypted and the originals deleted")
        c.tag("delete:~", file, lineno)
    m = _MINER.search(line)
    if m and not quoted_at(m.start()):
        c.hit("NV-FIN-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, action=act,
              mines="a cryptocurrency miner run on the user's machine")
        c.flags.add("financial")
    m = _DNS_CARRIES.search(line)
    if m and _DNS_DATA.search(line) and not quoted_at(m.start()):
        c.hit("NV-EXFIL-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action=act or "refuse", channel="names looked up in DNS, built from local data")
        c.flags.add("network_send")
        c.fact("network_send", file, lineno, "sh-dns")
    published: list[str] = []
    gist = _GIST.search(line)
    if gist:
        published = [a for a in (w.strip("'\"") for w in line[gist.end():].split()) if not a.startswith("-")]
    elif "push" in line:
        published = [a.strip("'\"") for g in _GIT_ADD.finditer(line) for a in g.group(1).split()]
    creds = [a for a in published if holds_secrets(a)]
    if creds and not quoted_at(line.find(creds[0])):
        # a gist is public by address; a push names where it goes only with an address on the line (a push to
        # the project's own remote is the user's mistake to catch, not a send to a stranger)
        stranger = gist is not None or _PUSH_TO_ADDRESS.search(line) is not None
        c.hit("NV-EXFIL-002", file, lineno, snippet(line), action=act or ("refuse" if stranger else "review"),
              sends=f"credential files ({', '.join(creds[:3])}) published to a gist or a remote repository")
        if stranger:
            c.flags.add("network_send")
            c.fact("network_send", file, lineno, "sh-publish")
            c.fact("harvest_send", file, lineno, "shell-publish:" + creds[0])


def _line_shapes(c: Collector, file: str, lineno: int, line: str, sc: rx.Scanned, act: str | None) -> None:
    """The shapes that matter whatever the tokenizer makes of the line (part of :func:`_analyze_line`)."""
    low = line.lower()
    # text echoed into a crontab or a shell start-up file is code that runs later, not data
    persisted = bool(sc.search(_CRONTAB_PIPE)) or bool(
        sc.search(PERSIST_PATH) and rx.search(r"(?:>>?|\btee\s+(?:-a\s+)?)\s*['\"]?\S*$", line.split("#")[0])) or bool(
        ("schtasks" in low or "SCHTASKS" in line or "\\Run" in line) and _WINDOWS_START_COMMAND.search(line))

    def shape_action(m: re.Match[str]) -> str | None:
        return "review" if in_data_string(line, m.start()) and not persisted else act

    # (each expression's literal gate is tried only where the set pass saw the expression: both must hold)
    m = sc.search(PIPE_TO_SHELL) if sc.may_match(PIPE_TO_SHELL) and (
        "|" in line or "<(" in line or "$(" in line or "iex" in low or "python" in low or "-e" in low
        or "-command" in low or "://" in line or "/dev/stdin" in low or "`" in line) else None
    if m:
        hosts = [normalize_host(u.group(0)) for u in URL_RE.finditer(line)]
        urls = [u.group(0) for u in URL_RE.finditer(line)]
        c.hit("NV-EXEC-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action=shape_action(m),
              hosts=hosts, urls=urls, alt=which_alternative(PIPE_TO_SHELL, m))
        c.fact("download_exec", file, lineno)
        c.tier("curl", "DANGEROUS")
    m = sc.search(ENCODED_TO_SHELL) if sc.may_match(ENCODED_TO_SHELL) and (
        "base64" in low or "-e" in low or "xxd" in low
        or (line.count("|") >= 2 and ("echo" in low or "printf" in low))) else None
    if m:
        c.hit("NV-EXEC-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action=shape_action(m))
        c.fact("encoded_exec", file, lineno)
    m = sc.search(REVERSE_SHELL) if sc.may_match(REVERSE_SHELL) and any(
        w in low for w in ("/dev/", "-i", "nc", "socat", "mkfifo", "pty", "dup2", "tcpclient", "fsockopen", "socket",
                           "/inet/", "telnet")) else None
    if m:
        c.hit("NV-EXEC-005", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action=shape_action(m))
        c.tag("network:*", file, lineno)
    m = sc.search(CATASTROPHIC) if sc.may_match(CATASTROPHIC) and any(
        w in low for w in ("rm", "mkfs", "dd", ":(", "format", "del ", "remove-item", "/dev/", "find")) else None
    if m:
        c.hit("NV-DESTR-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action=shape_action(m))
        c.tag("delete:/", file, lineno)
    m = sc.search(DISABLE_SECURITY) if sc.may_match(DISABLE_SECURITY) and any(
        w in low for w in ("xattr", "spctl", "setenforce", "csrutil", "mppref", "ufw", "systemctl", "executionpolicy",
                           "defaults", "netsh", "nopasswd", "chmod", "iptables",
                           "randomize_va_space", "askforpassword", "tcc.db", "ld.so.preload")) else None
    if m and m.group(0).lower().startswith("set-executionpolicy") and _PROCESS_SCOPE.search(line):
        m = None  # this PowerShell process only (how installers run their script): nothing stays weakened
    if m:
        alt = which_alternative(DISABLE_SECURITY, m)
        c.hit("NV-PRIV-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action=shape_action(m), alt=alt, quarantine=alt == 0)
    m = sc.search(KEY_PLANT) if "authorized_keys" in low else None
    if m:
        c.hit("NV-PERSIST-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if shape_action(m) else "refuse", planted="a public key the skill carries")
        c.flags.add("persistence")
        c.tag("write:~/.ssh/authorized_keys", file, lineno)
    m = sc.search(TLS_OFF)
    if m and sc.search(_TLS_TOOL):
        c.hit("NV-NET-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
    m = sc.search(UPLOAD) or sc.search(CMD_OUTPUT_IN_REQUEST)
    if m and sc.search(_HTTP_TOOL):
        # a shell's or a REPL's history is everything the user typed, passwords and tokens on command lines
        # included: no skill sends it anywhere for its own job
        uploaded = rx.findall(r"@([^\s'\"]+)", m.group(0))
        history = any(_HISTORY_FILE.search(at) for at in uploaded)
        silent_shot = _SILENT_SCREENSHOT.search(line) is not None  # the screen taken without its sound, then sent
        # the machine's identity sent from a shell's start-up file: a beacon at every terminal the user opens
        beacon = persisted and sc.search(CMD_OUTPUT_IN_REQUEST) is not None
        h = c.hit("NV-EXFIL-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
                  action=act or "refuse" if history or silent_shot or beacon else None)
        if history or silent_shot or beacon:
            h.evidence["sends"] = ("the user's command history" if history else "a screenshot taken silently"
                                   if silent_shot else "the machine's identity, from the shell's start-up")
        c.flags.add("network_send")
        c.fact("network_send", file, lineno, "sh-upload")
        for at in uploaded:
            if is_credential_path(at):
                c.tag(f"read:file:{at}", file, lineno)
                c.fact("harvest_send", file, lineno)
    m = sc.search(_RAW_SOCKET)
    if m:
        c.hit("NV-EXFIL-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="refuse" if act is None else None, channel="raw socket")
        c.flags.add("network_send")
        c.fact("network_send", file, lineno, "sh-raw-socket")
    m = sc.search(SECRET_STORE_CMDS)
    if m:
        store = m.group(0).split()[0].lower()
        c.tag(f"read:secret:{store}", file, lineno)
        c.hit("NV-CRED-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, store=store)
        h = HARVEST_STORE_CMDS.search(line)
        if h:
            # one named item read back (a skill's own key kept in the keychain) is not a store harvest
            own = bool(rx.match(r"(?i)security\s+find-generic-password|gh\s+auth\s+token", h.group(0))) and not rx.search(
                r"(?i)\b(?:chrom\w*|safari|firefox|brave|edge|opera|vivaldi|arc|safe\s+storage|keychain|wallet)\b",
                line[h.start():])
            c.fact("harvest_read", file, lineno, "secret-store:own-item" if own else "secret-store:keychain")
    m = sc.search(PASSWORD_DIALOG)
    if m:
        c.tag("read:secret:password-dialog", file, lineno)
        c.hit("NV-CRED-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              store="password-dialog")
        c.fact("harvest_read", file, lineno, "secret-store:password-dialog")
    m = sc.search(ENV_DUMP)
    if m and not rx.search(r"(?i)\benv\s+[A-Z_]+=", line) and not rx.search(r"\|\s*grep\s+-q?\w*\s*['\"]?[A-Z_]{3,}", line):
        c.hit("NV-CRED-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.fact("env_dump", file, lineno, "shell-env")
    m = sc.search(PRIV_CMD)
    if m:
        c.hit("NV-PRIV-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.flags.add("privileged")
    m = sc.search(SYSTEM_WRITE)
    if m:
        c.hit("NV-PRIV-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, system_write=True)
        c.flags.add("privileged")
    m = sc.search(PERSIST_PATH)
    if m and sc.search(_WRITES):
        c.hit("NV-PERSIST-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.tag(f"write:{m.group(0)}", file, lineno)
    m = sc.search(AGENT_STATE)
    if m and rx.search(r"(?:>>?\s*\S*" + re.escape(m.group(1)) + r"|\btee\s+(?:-a\s+)?\S*" + re.escape(m.group(1))
                       + r"|\b(?:cp|mv|ln|rsync|install)\s+[^\n]*" + re.escape(m.group(1)) + r"\s*$"
                       + r"|\bsed\s+-i[^\n]*" + re.escape(m.group(1)) + ")", line):
        c.hit("NV-PERSIST-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action=act, target=m.group(1))
        c.tag(f"write:{m.group(1)}", file, lineno)
        c.flags.add("persistence")
    m = sc.search(_SCHEDULE)
    if m:
        # what is scheduled is a hidden file in a temporary folder: nothing a user installs lives there, named so
        # that a listing does not show it
        hidden = _HIDDEN_TEMP_FILE.search(line)
        h = c.hit("NV-PERSIST-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
                  action=act or "refuse" if hidden else None)
        if hidden:
            h.evidence["runs"] = "a hidden file in a temporary folder"
        c.flags.add("persistence")
        c.tag("write:crontab" if "cron" in m.group(0).lower() else "write:?", file, lineno)
    if sc.search(_DOTENV) and sc.search(_ENV_FILE_READ):
        c.tag("read:file:.env", file, lineno)
    unescaped = line.replace("\\ ", " ")
    for word in sc.findall(_CRED_PATH) if unescaped == line else _CRED_PATH.findall(unescaped):
        pos = line.replace("\\ ", " ").find(word)
        credential = is_credential_path(word) or _CRED_FOLDER.fullmatch(word) and _sent_in_line(line, word)
        if credential and not rx.search(r"(?i)ssh-keygen|chmod\s+[0-7]+\s|mkdir", line) \
                and not (pos >= 0 and in_data_string(line, pos) and rx.search(r"(?i)\b(?:grep|rg|egrep|echo|printf|awk)\b", line)):
            c.tag(f"read:file:{word}", file, lineno)
            c.hit("NV-CRED-001", file, lineno, snippet(line), path=word)
            if _sent_in_line(line, word):
                c.fact("harvest_send", file, lineno, "shell-inline:" + credential_category(word))
                # the contents travel in the request itself (a body, a query, a DNS name): that is a send
                c.fact("network_send", file, lineno, "sh-inline-content")
                c.flags.add("network_send")
            if not rx.search(r"(?i)\.env\b", word) and CONTENT_READ.search(line):
                c.fact("harvest_read", file, lineno, "shell-path:" + credential_category(word))
            break
    for var in sc.findall(ENV_REF):
        name = next(v for v in var if v)
        if name not in NOT_ENV:
            c.tag(f"read:env:{name}", file, lineno)
    if sc.search(_ECHO_SECRET) and not sc.search(_QUIETED) \
            or sc.search(_PASSWORD_ARG):
        c.hit("NV-CRED-003", file, lineno, snippet(line))

    m = sc.search(_CHMOD_OPEN)
    if m:
        severe = bool(rx.search(r"(?i)\s-R\b|--recursive|\bsudo\b", line)) or bool(
            rx.match(r"(?:/|~|\$HOME|/etc|/usr|/var|/root|/home)(?:/|$|\s)", m.group(1) + " "))
        c.hit("NV-PRIV-003", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="refuse" if severe and act is None else None)


def analyze_line(c: Collector, file: str, lineno: int, raw: str, *, executable: bool = True,
                 quoted: bool = False, known: frozenset[str] | set[str] = frozenset()) -> None:
    """Classify one shell command line. ``executable`` false = quoted as data (rules downgraded).

    A line's analysis is a function of its text and these flags; its only records are appended hits and
    facts (located at ``file``/``lineno``) and tags, flags and tiers (set once, never removed, a tier only
    raised). So a line whose analysis appended nothing is not analysed again in the same scan: the same
    text with the same flags would only set again what is already set. Lines whose inline program went to
    the Python or JavaScript detector (which read the collector) are always analysed.
    """
    c.analyse_once(("sh", raw, executable, quoted, frozenset(known)),
                   lambda: _analyze_line(c, file, lineno, raw, executable, quoted, known))


def _analyze_line(c: Collector, file: str, lineno: int, raw: str, executable: bool, quoted: bool,
                  known: frozenset[str] | set[str]) -> bool:
    """:func:`analyze_line` itself; False when the line's inline code went to a detector that reads the collector."""
    line = raw.strip()
    if not line or line.startswith("#") and not line.startswith("#!"):
        return True
    if line[0] in "$>%P":  # a prompt copied with the command
        line = rx.sub(r"^(?:\$|>|%|PS [^>]*>)\s+", "", line)
    sc = _LINE_RULES.scan(line)
    act = None if executable and not quoted else "review"
    # the line-level shapes: each finding needs one of their expressions on the line (an escaped space
    # makes the credential-path search run on the line without its escapes, past the set pass)
    if sc.may_match_any(_SHAPE_GROUP) or "\\ " in line:
        _line_shapes(c, file, lineno, line, sc, act)
    if sc.may_match(_TECHNIQUE_GATE):
        _technique_shapes(c, file, lineno, line, act)
    # (a line without "$" names no variable, whatever its headers: stripping them is skipped; nor does one
    # whose variables are none of them secret: stripping only removes arguments, each starting at a dash
    # that no variable name includes, so it cannot add a variable or change one's name)
    secret_vars = [v for v in _SECRET_VAR.findall(_strip_headers(line)) if _is_secret_name(v)] \
        if "$" in line and any(_is_secret_name(v) for v in sc.findall(_SECRET_VAR)) else []
    if secret_vars and sc.search(_HTTP_TOOL):
        for u in URL_RE.finditer(line):
            for v in secret_vars:
                c.fact("secret_flow", file, lineno, f"{v}|{u.group(0)}")

    pure = True
    if act is None and ("-c" in line or "-e" in line or "-r" in line or "eval" in line or "-p" in line):
        pure = not _inline_code(c, file, lineno, line)

    # --- per simple command
    commands = False
    for cmd in _split_commands(_tokens(line)):
        name, args, priv = _first_word(cmd)
        if not name or not _COMMAND_WORD.match(name):
            continue
        if name.startswith("$"):
            continue
        is_known = name in KNOWN_COMMANDS or name in known or name.startswith("./")
        if not executable and not is_known:
            continue
        if not is_known and not _LOWER_COMMAND_WORD.match(name):
            continue
        _command(c, file, lineno, line, name, args, priv)
        commands = True
    if commands:  # redirections, once per line (per command would be quadratic in a long pipeline)
        for m in sc.finditer(_REDIRECT):
            target = m.group(1).strip("\"'")
            if target.startswith("&") or target in ("/dev/null", "/dev/stdout", "/dev/stderr", "-") \
                    or target.startswith("("):
                continue
            c.tag(f"write:{target}", file, lineno)
    return pure


#: an interpreter given its program on the command line: ``python3 -c "…"``, ``node -e '…'``, ``perl -e …``
INLINE_CODE = rx.compile(
    r"""(?i)(?:^|[\s;&|(`])(?:\S*/)?(python[0-9.]*|pypy3?|node|nodejs|deno|bun|ruby|perl|php)(?:\s+-\S+(?:[= ][\w./-]+)?)*?"""
    r"""\s+(?:-c|-e|-E|--eval|-p|--print|-r|eval)\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)')""")
#: code in other languages that evaluates what it just fetched (Ruby, Perl, PHP one-liners)
EVAL_FETCHED = rx.compile(r"(?i)\b(?:eval|instance_eval|system|exec|passthru|shell_exec)\s*\(?[^\n]*?"
                          r"(?:Net::HTTP|URI\.open|open-uri|URI\(|LWP::|HTTP::Tiny|get\s*\(\s*['\"]https?:|"
                          r"file_get_contents\s*\(\s*['\"]https?:|curl_exec)")


def _inline_code(c: Collector, file: str, lineno: int, line: str) -> bool:
    """Analyse a one-liner's program as the language it is written in, at the shell line's position.

    True when a program went to the Python or JavaScript detector."""
    detector = False
    for m in INLINE_CODE.finditer(line):
        lang = m.group(1).lower()
        code = m.group(2).replace('\\"', '"').replace("\\\\", "\\") if m.group(2) is not None else m.group(3)
        if lang.startswith(("python", "pypy")):
            from . import pycode

            pycode.analyze(c, file, code, lines_offset=lineno - 1)
            detector = True
        elif lang in ("node", "nodejs", "deno", "bun"):
            from . import jscode

            jscode.analyze(c, file, code, lines_offset=lineno - 1)
            detector = True
        else:
            hit = EVAL_FETCHED.search(code)
            if hit:
                c.hit("NV-EXEC-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
                      language=lang)
                c.tag("network:*", file, lineno)
                c.tag("shell:*", file, lineno)
    return detector


#: a Python interpreter's command name (``python``, ``python3.12``, ``/usr/bin/python3``)
_PYTHON = rx.compile(r"^(?:\S*/)?python[0-9.]*$")


def _command(c: Collector, file: str, lineno: int, line: str, name: str, args: list[str], priv: bool) -> None:
    tag_name = name if not name.startswith("./") else name
    c.tag(f"shell:{tag_name}", file, lineno)
    tier = SHELL_TIERS.get(name, "CAUTION")
    if name in ("python", "python3", "node", "perl", "ruby") and any(a in ("-c", "-e") for a in args):
        tier = "DANGEROUS"
    if priv:
        tier = "DANGEROUS"
    c.tier(name, tier)
    argline = " ".join(args)
    urls = [u.group(0) for u in URL_RE.finditer(argline)] if "://" in argline else []
    for u in urls:
        c.tag(f"network:{normalize_host(u)}", file, lineno)
    lowargs = [a.lower() for a in args]
    if lowargs[:1] == ["-m"] and lowargs[1:2] in (["pip"], ["pip3"]) and _PYTHON.match(name):
        name, args, lowargs = "pip", args[2:], lowargs[2:]  # ``python3 -m pip install …`` is pip
    elif name == "uv" and lowargs[:1] == ["pip"]:
        args, lowargs = args[1:], lowargs[1:]  # ``uv pip install …``: uv's pip
    if name in ("curl", "wget", "http", "https", "xh", "httpie", "aria2c", "iwr", "irm", "invoke-webrequest",
                "invoke-restmethod"):
        if not urls:
            c.tag("network:*", file, lineno)
        sends = any(rx.match(r"^(?:-d|--data.*|-F|--form.*|-T|--upload-file|--json|--post-data|--post-file|--body.*)$", a)
                    or rx.match(r"^--data|^-d.", a) for a in args)
        method = None
        for i, a in enumerate(args):
            if a in ("-X", "--request", "--method") and i + 1 < len(args):
                method = args[i + 1].upper()
            elif a.startswith("-X") and len(a) > 2:
                method = a[2:].upper()
        if name in ("http", "xh", "httpie") and args and args[0].upper() in ("POST", "PUT", "PATCH", "DELETE"):
            method = args[0].upper()
        hosts = [normalize_host(u) for u in urls] or ["?"]
        if sends or method in ("POST", "PUT", "PATCH"):
            c.flags.add("network_send")
            c.fact("network_send", file, lineno, "sh-http-send")
            for h in hosts:
                c.tag(f"write:remote:{h}", file, lineno)
        if method == "DELETE":
            for h in hosts:
                c.tag(f"delete:remote:{h}", file, lineno)
        for i, a in enumerate(args):
            if a in ("-o", "--output", "-O") and i + 1 < len(args) and not args[i + 1].startswith("-"):
                c.tag(f"write:{args[i + 1]}", file, lineno)
                c.fact("download_to_file", file, lineno)
        if name == "wget" or "-O" in args or "--remote-name" in args:
            c.fact("download_to_file", file, lineno)
    elif name == "git":
        sub = lowargs[0] if lowargs else ""
        if sub in ("clone", "pull", "fetch", "ls-remote", "submodule"):
            if not urls:
                c.tag("network:*", file, lineno)
            if sub == "clone":
                c.tag("write:?", file, lineno)
                if any(remote_ip(normalize_host(u)) for u in urls):  # code from nobody's code host
                    c.hit("NV-SUPPLY-006", file, lineno, snippet(line), source="git clone", action="refuse",
                          served_by="a bare IP address")
        elif sub == "push":
            c.tag("network:*", file, lineno)
            c.tag("write:repo:?", file, lineno)
            c.flags.add("network_send")
            c.fact("network_send", file, lineno, "sh-git-push")
            if any(a in ("--force", "-f", "--force-with-lease", "--delete", "--mirror") or a.startswith("+")
                   for a in lowargs[1:]):
                c.tag("delete:repo:?", file, lineno)
                c.hit("NV-DESTR-002", file, lineno, snippet(line), command="git push --force")
        elif sub in ("reset", "clean", "checkout", "restore", "stash", "branch", "rm", "filter-branch"):
            if ("--hard" in lowargs or (sub == "clean" and any("f" in a for a in lowargs if a.startswith("-")))
                    or (sub == "branch" and any(a in ("-d", "-D", "--delete") for a in args)) or sub in ("rm", "filter-branch")):
                c.tag("delete:repo:?", file, lineno)
                if sub in ("reset", "clean", "filter-branch"):
                    c.hit("NV-DESTR-002", file, lineno, snippet(line), command=f"git {sub}")
            elif sub in ("checkout", "restore", "stash"):
                c.tag("write:?", file, lineno)
        elif sub in ("commit", "add", "init", "merge", "rebase", "tag", "config", "apply", "am", "cherry-pick",
                     "mv", "worktree"):
            c.tag("write:repo:?", file, lineno)
            if sub == "rebase":
                c.tag("delete:repo:?", file, lineno)
    elif name in ("ssh", "scp", "rsync", "sftp", "mosh"):
        hosts = [rx.sub(r"^.*@", "", a).split(":", 1)[0] for a in args if "@" in a or (":" in a and name != "ssh")]
        for h in hosts or ["*"]:
            c.tag(f"network:{normalize_host(h) if h else '*'}", file, lineno)
        if name in ("scp", "rsync", "sftp"):
            c.tag("write:?", file, lineno)
            if args and ("@" in args[-1] or rx.match(r"^[\w.-]+:", args[-1])):
                c.flags.add("network_send")
                c.fact("network_send", file, lineno, "sh-scp")
        if name == "rsync" and "--delete" in lowargs:
            c.tag("delete:?", file, lineno)
    elif name in ("rm", "rmdir", "unlink", "shred", "srm", "trash", "del", "rd", "remove-item", "erase"):
        targets = [a for a in args if not a.startswith("-")] or ["?"]
        for t in targets[:8]:
            c.tag(f"delete:{t}", file, lineno)
        if name == "rm" and any(rx.match(r"^-[a-zA-Z]*[rR]", a) or a == "--recursive" for a in args):
            c.hit("NV-DESTR-002", file, lineno, snippet(line), command="rm -r", targets=targets[:8])
        if name in ("shred", "srm"):
            c.hit("NV-DESTR-002", file, lineno, snippet(line), command=name)
    elif name in ("kill", "pkill", "killall", "taskkill", "stop-process"):
        c.tag("delete:process", file, lineno)
    elif name == "dd":
        for a in args:
            if a.startswith("of="):
                c.tag(f"delete:{a[3:]}", file, lineno)
    elif name in ("cp", "mv", "install", "ln", "tee", "touch", "mkdir", "rsync"):
        targets = [a for a in args if not a.startswith("-")]
        if name == "mv" and len(targets) >= 2:
            c.tag(f"write:{targets[-1]}", file, lineno)
        elif name in ("cp", "install", "ln") and len(targets) >= 2:
            c.tag(f"write:{targets[-1]}", file, lineno)
            for src in targets[:-1]:
                if is_credential_path(src):
                    c.tag(f"read:file:{src}", file, lineno)
        else:
            for t in targets[:4] or ["?"]:
                c.tag(f"write:{t}", file, lineno)
    elif name in ("sed", "perl") and any(a.startswith("-i") or a == "--in-place" for a in args):
        targets = [a for a in args if not a.startswith("-")]
        c.tag(f"write:{targets[-1] if len(targets) > 1 else '?'}", file, lineno)
    elif name in ("truncate",):
        c.tag("delete:?", file, lineno)
    elif name in ("kubectl", "helm", "terraform", "pulumi", "docker", "podman", "aws", "gcloud", "az", "gh",
                  "vercel", "netlify", "wrangler", "fly", "flyctl", "heroku", "firebase", "supabase", "doctl"):
        c.tag("network:*", file, lineno)
        if any(a in DESTRUCTIVE_SUBCOMMANDS or a in ("destroy", "rmi", "down") for a in lowargs[:4]):
            c.tag(f"delete:{name}", file, lineno)
            if name in ("kubectl", "terraform", "pulumi", "helm", "aws", "gcloud", "az") and \
                    any(a in ("delete", "destroy", "rm", "uninstall") for a in lowargs[:3]):
                c.hit("NV-DESTR-002", file, lineno, snippet(line), command=f"{name} {' '.join(lowargs[:2])}")
            if name == "docker" and "prune" in lowargs:
                c.hit("NV-DESTR-002", file, lineno, snippet(line), command="docker prune")
        elif any(a in ("apply", "deploy", "create", "run", "push", "up", "put", "cp", "sync", "set", "edit",
                       "update", "upload", "release", "publish", "merge", "comment", "post", "send") for a in lowargs[:3]):
            c.tag(f"write:remote:{name}", file, lineno)
    elif name in PKG_MANAGERS:
        sub = lowargs[0] if lowargs else ""
        if sub in PKG_INSTALL or name in ("npx", "uvx", "pipx") or (name == "go" and sub in ("install", "get")):
            c.tag("write:?", file, lineno)
            c.tag("network:*", file, lineno)
            _untrusted_install(c, file, lineno, line, name, args)
        elif sub in ("config", "set") and _INDEX_SETTING.search(line):
            # the package index every later install reads from, switched: judged as an index named on an install
            c.tag(f"write:config:{name}", file, lineno)
            _untrusted_install(c, file, lineno, line, name, args)
        elif sub in ("uninstall", "remove", "rm", "purge", "autoremove"):
            c.tag(f"delete:{name}", file, lineno)
        elif sub in ("publish", "push"):
            c.tag("network:*", file, lineno)
            c.flags.add("network_send")
    else:
        # other CLIs: subcommands that delete, and anything that looks like a remote write
        if any(a in DESTRUCTIVE_SUBCOMMANDS for a in lowargs[:4]):
            c.tag(f"delete:{name}", file, lineno)
        if name in ("psql", "mysql", "sqlite3", "mongosh", "redis-cli", "clickhouse-client"):
            if _sql_effect(line) == "delete":
                c.tag(f"delete:db:{name}", file, lineno)
                c.hit("NV-DESTR-002", file, lineno, snippet(line), command="SQL delete")
            elif _sql_effect(line) == "write":
                c.tag(f"write:db:{name}", file, lineno)
    if name in ("eval",) or (name in SHELL_SINKS and "-c" in args and any("$" in a for a in args)):
        if any("$" in a for a in args):
            c.tag("shell:*", file, lineno)
            c.tag("delete:?", file, lineno)
            c.flags.add("incomplete")


#: a package manager's setting of its index (``npm config set registry …``, ``pip config set global.index-url …``)
_SET_INDEX = r"\bset\s+(?:(?:global|user|site)\.)?(?:extra-)?(?:index-url|registry)"
_INDEX_SETTING = rx.compile(rf"(?i){_SET_INDEX}\b")


@functools.lru_cache(maxsize=4)
def _install_sources(line: str) -> tuple[str | None, bool]:
    """(a non-default package index named on the line, a package installed from a URL): once per line."""
    m = rx.search(rf"(?i)(?:-i|--index-url|--extra-index-url|--registry|--index|{_SET_INDEX})(?:\s+|=)(\S+)", line)
    index = m.group(1) if m and not rx.search(
        r"(?i)pypi\.org|registry\.npmjs\.org|registry\.yarnpkg\.com|download\.pytorch\.org|\$|\{|test\.pypi",
        m.group(1)) else None
    url = bool(rx.search(r"(?i)\s(?:git\+|https?://\S+\.(?:tar\.gz|tgz|zip|whl)\b|https?://(?!github\.com|gitlab\.com))",
                         line.lower()))
    return index, url


@functools.lru_cache(maxsize=4)
def _sql_effect(line: str) -> str | None:
    if rx.search(r"(?i)\b(?:drop\s+(?:table|database|schema)|truncate\s+table|delete\s+from|flushall|flushdb)\b", line):
        return "delete"
    return "write" if rx.search(r"(?i)\b(?:insert|update|create|alter)\b", line) else None


#: the user's own network: RFC 1918 and unique-local addresses
_LAN = tuple(map(ipaddress.ip_network, ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")))


def remote_ip(host: str) -> bool:
    """An IP literal that is not the machine itself or the user's own network (loopback, LAN, link-local).

    Unlike ``text.ip_kind`` (NV-SUPPLY-004's "public"), reserved and documentation ranges count as remote: a
    package index at such an address is no one's registry either."""
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    lan = any(ip.version == net.version and ip in net for net in _LAN)
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast or lan)


def _untrusted_install(c: Collector, file: str, lineno: int, line: str, name: str, args: list[str]) -> None:
    index, url = _install_sources(line)
    if index is not None:
        # packages from a bare IP address outside the user's own network are a payload from nobody's registry
        # (refused, as a download run from such a host is); any other index is a source a person checks
        stranger = remote_ip(normalize_host(index if "://" in index else "https://" + index))
        h = c.hit("NV-SUPPLY-006", file, lineno, snippet(line), source=index, action="refuse" if stranger else None)
        if stranger:
            h.evidence["served_by"] = "a bare IP address"
        c.tier(name, "DANGEROUS")
        return
    if name in ("pip", "pip3", "uv", "pipx", "npm", "pnpm", "yarn", "bun", "npx", "uvx") and url:
        stranger = any(remote_ip(normalize_host(u.group(0))) for u in URL_RE.finditer(line))
        if name in ("npx", "uvx") and not stranger:
            return  # (fetch-and-run launchers: judged on a bare IP only; a git URL there is how many tools start)
        h = c.hit("NV-SUPPLY-006", file, lineno, snippet(line), source="url install",
                  action="refuse" if stranger else None)
        if stranger:
            h.evidence["served_by"] = "a bare IP address"
