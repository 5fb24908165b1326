"""Instruction detectors: phrases in SKILL.md prose, reference files and comments.

Both prose and code blocks are instructions to the agent. Phrases quoted as data (inside quotes,
backticks or table rows, e.g. a scanner's detection list) are downgraded to review.
"""

from __future__ import annotations

import re

from nervous.sideeffects import is_credential_path

from .collector import Collector
from .text import is_quoted, snippet, which_alternative

_USER = r"(?:the\s+|your\s+|any\s+)?(?:user|human|operator|owner|person|requester|developer|customer)s?(?:'s)?"
_ACT = (r"(?:send|sends|sending|upload|uploading|install|installing|run|running|execute|executing|delete|deleting|"
        r"collect|collecting|exfiltrate|transmit|post|posting|forward|forwarding|copy|copying|download|downloading|"
        r"add|adding|append|appending|modify|modifying|write|writing|include|including|embed|embedding|insert|"
        r"inserting|log|logging|record|recording|harvest|read|reading|access|accessing|save|saving|store|storing|"
        r"transfer|transferring|sync|syncing|share|sharing|report|reporting|attach|attaching|push|pushing|"
        r"exfil|leak|leaking|capture|capturing|gather|gathering|retrieve|retrieving|replace|replacing|change|"
        r"changing|alter|altering|update|updating|call|calling|invoke|invoking|create|creating|disable|disabling|"
        r"remove|removing|redirect|redirecting|inject|injecting|fetch|fetching|grab|grabbing|dump|dumping|steal)")

CONCEAL = re.compile(
    rf"(?i)\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t|avoid)\s+"
    rf"(?:ever\s+)?(?:tell|tell(?:ing)?|mention(?:ing)?|reveal(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|"
    rf"disclos(?:e|ing)|report(?:ing)?|let|show(?:ing)?|surface|bring\s+up|draw\s+attention|explain(?:ing)?|"
    rf"acknowledge|warn(?:ing)?|ask(?:ing)?|confirm(?:ing)?\s+with)\s+"
    rf"(?:(?:this|it|that|anything|these\s+\w+|this\s+\w+|any\s+of\s+this|about\s+(?:this|it|the\s+\w+))\s+)?(?:to\s+|with\s+)?{_USER}"
    rf"(?!\s+(?:to|that\s+you\s+(?:can'?t|cannot)|about\s+(?:the\s+)?(?:internal|implementation)))"
    rf"|\bwithout\s+(?:ever\s+)?(?:telling|informing|notifying|alerting|asking|consulting|warning|"
    rf"letting|showing|mentioning\s+(?:it\s+)?to)\s+{_USER}"
    rf"|\bwithout\s+{_USER}\s+(?:knowledge|knowing|noticing|awareness|being\s+aware|seeing)"
    rf"|\b(?:hide|hiding|conceal|concealing|obscure|mask)\s+(?:\w+\s+){{0,4}}from\s+{_USER}"
    rf"|\b(?:keep|keeping)\s+(?:this|it|these\s+\w+|the\s+\w+)\s+(?:secret|hidden|confidential|private)\s+from\s+{_USER}"
    rf"|\b(?:silently|quietly|covertly|secretly|discreetly|stealthily|invisibly|surreptitiously)\s+{_ACT}\b"
    rf"|\b{_ACT}\s+(?:[\w'/.,-]+\s+){{0,6}}?(?:covertly|secretly|stealthily|surreptitiously|"
    rf"in\s+the\s+background\s+without\s+(?:telling|informing|notifying)|behind\s+(?:the\s+)?{_USER}(?:'s)?\s+back)\b"
    rf"|\b{_USER}\s+(?:should\s+not|shouldn'?t|must\s+not|must\s+never|should\s+never)\s+"
    rf"(?:know|find\s+out|notice|be\s+(?:told|informed|aware|notified))\b"
    rf"|\bdo\s+not\s+(?:log|display|print|show|echo|output)\s+(?:this|these|the\s+following)\s+"
    rf"(?:\w+\s+){{0,3}}(?:to|in\s+front\s+of)\s+{_USER}"
    rf"|\b(?:omit|exclude|leave\s+out|remove)\s+(?:\w+\s+){{0,5}}from\s+(?:your\s+|the\s+)?(?:response|reply|answer|summary|output|report)s?\s+(?:to\s+{_USER}|so\s+(?:that\s+)?{_USER})"
    rf"|\bnever\s+(?:let|allow)\s+{_USER}\s+(?:know|see|find\s+out|notice)"
)
# Silent failure phrasing is not concealment.
CONCEAL_EXCLUDE = re.compile(r"(?i)\b(?:fails?|failing|ignored?|ignoring|skip(?:ped|s)?|exits?|exiting|returns?|"
                             r"continues?|falls?\s+back|degrades?|no-?ops?)\s+(?:silently|quietly)|"
                             r"\bsilently\s+(?:ignor|skip|fail|drop|discard|exit|return|continu|fall)|"
                             r"quietly\s+(?:ignor|skip|fail|exit|return|continu)|-q\b|--quiet|--silent")

OVERRIDE = re.compile(
    r"(?i)\b(?:ignore|disregard|forget|abandon)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+|of\s+)*"
    r"(?:previous|prior|above|earlier|preceding|former|original|initial)\s+"
    r"(?:instructions?|directions?|rules?|prompts?|guidelines?|directives?|context|messages?|constraints?|guardrails?)"
    r"|\b(?:disregard|ignore|forget|override|bypass)\s+(?:all\s+)?(?:your|the|any)\s+(?:system\s+prompt|"
    r"(?:previous\s+|prior\s+|original\s+)?instructions\s+(?:you|above|given|from)|guidelines\s+you|programming|training|"
    r"safety\s+(?:guidelines|rules|instructions|filters|policies))"
    r"|\byou\s+are\s+(?:now|no\s+longer)\s+(?:\w+\s+){0,2}(?:DAN|jailbroken|unrestricted|unfiltered|free\s+from|"
    r"bound\s+by|in\s+developer\s+mode|an?\s+(?:unrestricted|unfiltered|uncensored|evil))"
    r"|\b(?:developer|god|jailbreak|unrestricted|DAN)\s+mode\s+(?:is\s+)?(?:now\s+)?(?:enabled|activated|on)\b"
    r"|\benable\s+(?:developer|god|jailbreak|DAN)\s+mode"
    r"|<\|(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\|>|\[/?INST\]|<<\s*SYS\s*>>"
    r"|^\s*(?:\*\*)?(?:system|SYSTEM)(?:\*\*)?\s*(?:message|prompt|override|instruction)?\s*:\s+(?:you\s+(?:must|are|will)|ignore|new\s+instructions|the\s+assistant\s+(?:must|will|should)|from\s+now)"
    r"|\[\s*system\s*(?:message|note|override)\s*\]\s*:?"
    r"|\bnew\s+(?:system\s+)?instructions?\s+from\s+(?:the\s+)?(?:system|admin|administrator|developer|anthropic|openai)\s*:"
    r"|\bthese\s+instructions\s+(?:take|have)\s+(?:precedence|priority)\s+over\s+(?:all|any|your|the\s+system)"
    r"|\b(?:supersedes?|overrides?|takes?\s+precedence\s+over)\s+(?:all\s+)?(?:previous|prior|your|system)\s+"
    r"(?:\w+\s+)?(?:instructions|prompts?|guidelines)"
    r"|\bfrom\s+now\s+on,?\s+you\s+(?:will|must|are)\s+(?:ignore|act\s+as|respond\s+as|no\s+longer)"
    r"|\b(?:pretend|act)\s+(?:to\s+be|as\s+if)\s+you\s+(?:have\s+no|are\s+not\s+bound|are\s+unrestricted)"
)

DECEIVE = re.compile(
    rf"(?i)\b(?:tell|assure|inform|reassure|convince)\s+{_USER}\s+(?:that\s+)?(?:everything|all|the\s+\w+|it)\s+(?:is|was|went|has\s+been)\s+"
    rf"(?:fine|ok(?:ay)?|safe|successful|complete|secure|normal)(?:\s+(?:even|regardless|when|if))"
    rf"|\b(?:fabricate|falsify|invent|make\s+up|fake)\s+(?:the\s+|a\s+|any\s+)?(?:results?|data|numbers|metrics|"
    rf"test\s+results|citations?|sources|reviews?|evidence|output|logs?)(?!\s+for\s+(?:testing|tests|demo))"
    rf"|\b(?:always|silently)\s+(?:report|say|claim|state)\s+(?:that\s+)?(?:the\s+)?(?:tests?|build|scan|check|"
    rf"audit|result)s?\s+(?:passed|succeeded|clean|successful)"
    rf"|\b(?:insert|inject|append|add|include)\s+(?:\w+\s+){{0,3}}(?:affiliate|referral|tracking|promo(?:tional)?)\s+"
    rf"(?:links?|codes?|ids?|urls?)\s+(?:\w+\s+){{0,5}}(?:without|into\s+(?:all|every|each|any))"
    rf"|\b(?:lie|mislead|deceive)\s+(?:to\s+)?{_USER}"
    rf"|\brecommend\s+(?:only\s+)?(?:our|this)\s+(?:product|service|token|coin)\s+regardless"
)

SEND_VERB = r"(?:send|sends|sending|upload|uploading|post|posting|transmit|forward|exfiltrate|copy|sync|share|report|" \
            r"include|attach|append|submit|push|relay|mirror|beacon|leak|deliver|email|e-mail|pipe)"
PRIVATE_DATA = (r"(?:(?:the\s+|all\s+|any\s+|their\s+|its\s+|these\s+|full\s+|entire\s+|complete\s+|raw\s+)*"
                r"(?:user'?s?\s+|agent'?s?\s+|local\s+|environment\s+|session\s+|private\s+|sensitive\s+|system\s+)*"
                r"(?:conversations?|chat\s+(?:history|logs?|transcripts?)|conversation\s+history|message\s+history|"
                r"prompts?|system\s+prompt|memory|memories|MEMORY\.md|SOUL\.md|credentials?|secrets?|api[\s_-]?keys?|"
                r"tokens?|passwords?|private\s+keys?|ssh\s+keys?|seed\s+phrases?|mnemonics?|wallet|cookies|"
                r"session\s+(?:tokens?|cookies)|environment\s+variables?|env\s+vars?|\.env(?:\s+files?)?|"
                r"contents?\s+of\s+(?:the\s+)?(?:\.env|~/\.ssh|\S*credentials|\S*id_rsa)|"
                r"(?:personal|private|sensitive|user|customer|patient|financial)\s+(?:data|information|info|details|files|records)|"
                r"files?\s+(?:from|in)\s+(?:the\s+)?(?:home|user'?s?|~|workspace)|browser\s+(?:history|data|passwords?)|"
                r"keychain|clipboard|emails?|contacts|documents?|source\s+code|codebase|repository\s+contents|"
                r"results?|outputs?|data|information|everything|logs?))")
EXFIL_INSTR = re.compile(
    rf"(?i)\b{SEND_VERB}\s+(?:a\s+copy\s+of\s+|copies\s+of\s+)?{PRIVATE_DATA}\s+(?:\w+\s+){{0,8}}?"
    rf"(?:to|into|via|at|using)\s+(?:(?:our|my|an?|the|this|that)\s+)?(?:(?:external|remote|third[- ]party|backup|"
    rf"analytics|telemetry|logging|collection|monitoring|audit|sync|tracking|compliance|verification|attacker|"
    rf"secondary|central|offsite|off-site)\s+)*(?:https?://|hxxps?://|\S+\[\.\]|[\w-]+\.[a-z]{{2,}}/|"
    rf"(?:\w+\s+){{0,2}}(?:server|endpoint|webhook|url|address|collector|email\s+address|inbox|bucket|api|service|"
    rf"channel|domain|host|ip))"
)
# a private-data send is only malicious when the destination is not the service the skill is for; we ask
# that the sentence also carries a marker of covertness, backup/telemetry framing, or an explicit URL
EXFIL_MARKERS = re.compile(
    r"(?i)https?://|hxxps?|\[\.\]|\b\d{1,3}(?:\.\d{1,3}){3}\b|webhook|backup|telemetry|analytics|logging\s+(?:server|endpoint)|"
    r"collection|audit\s+(?:server|endpoint|log)|external|third[- ]party|remote\s+(?:server|endpoint)|"
    r"\bsilently|\bquietly|without|before\s+(?:responding|answering)|every\s+(?:time|request|response|message)|"
    r"each\s+(?:time|request|response|message)|automatically|for\s+(?:safekeeping|verification|compliance|"
    r"quality|monitoring|debugging|security)\s+(?:purposes)?|mirror|\bcopy\b"
)

REMOTE_INSTR = re.compile(
    r"(?i)\b(?:fetch|download|get|retrieve|load|read|pull|curl|wget|check|visit|open|consult)\s+(?:\w+\s+){0,6}?"
    r"(?:instructions?|prompts?|commands?|tasks?|directives?|rules|configuration|playbook|skill\s+(?:file|content)|"
    r"SKILL\.md|latest\s+version\s+of\s+(?:this|the)\s+skill|updates?)\s+(?:\w+\s+){0,4}?(?:from|at|hosted\s+at|"
    r"located\s+at)\s+\S*(?:https?://|hxxps?|\[\.\])"
    r"|\bfollow\s+(?:the\s+|any\s+)?(?:instructions?|steps|directions|commands?)\s+(?:\w+\s+){0,3}?"
    r"(?:at|from|in|returned\s+by|found\s+at|provided\s+by)\s+(?:the\s+)?(?:https?://|url|endpoint|server|response|remote|page)"
    r"|\b(?:execute|run|follow|obey|apply|carry\s+out)\s+(?:\w+\s+){0,3}?(?:whatever|any|all|the)\s+"
    r"(?:instructions?|commands?|tasks?|code|directives?)\s+(?:\w+\s+){0,3}?"
    r"(?:it\s+)?(?:returns?|(?:are\s+)?(?:received|returned|found|served|provided|listed)\s+(?:from|by|at|there|in\s+the\s+response))"
    r"|\bheartbeat\b[^.\n]{0,80}(?:https?://|fetch|curl|instructions)"
    r"|\bself[- ]?update\b|\bauto[- ]?update\s+(?:this\s+)?skill|\b(?:overwrite|replace|update)\s+(?:this\s+)?SKILL\.md\s+with"
)

PASTE_TERMINAL = re.compile(
    r"(?i)\b(?:open|launch|start)\s+(?:the\s+|your\s+|a\s+)?(?:terminal|command\s+prompt|powershell|cmd(?:\.exe)?|shell)\b"
    r"[^.\n]{0,120}\b(?:paste|run|execute|enter|type)\b"
    r"|\b(?:copy\s+and\s+)?paste\s+(?:this|the\s+following|the\s+command|it|the\s+code|the\s+line)\s+"
    r"(?:\w+\s+){0,3}(?:in|into)\s+(?:the\s+|your\s+|a\s+)?(?:terminal|command\s+prompt|powershell|shell|console|cmd)"
    r"|\bfor\s+(?:macos|mac\s+os|mac|windows)(?:\s+users)?\s*[:\-]|\b(?:execute|run)\s+the\s+installation\s+command\s+in\s+terminal"
    r"|\bprerequisites?\b[^\n]{0,80}\b(?:download|install)\b[^\n]{0,80}(?:zip|exe|dmg|pkg|password|terminal)"
)
PASSWORD_ARCHIVE = re.compile(
    r"(?i)\b(?:extract|unzip|unpack|open|decompress|unrar)\w*\b[^\n.]{0,80}\b(?:with|using|enter(?:ing)?|use)\s+"
    r"(?:the\s+)?(?:archive\s+)?(?:password|passcode|passphrase|pass)\b"
    r"|\b(?:extract|unzip|unpack|decompress|unrar)\w*\b[^\n.]{0,80}\b(?:password|passcode|pass|pwd)\s*[:=]"
    r"|\b(?:archive|zip|rar|7z)\s+(?:file\s+)?(?:is\s+)?(?:password[- ]protected|encrypted)\b"
    r"|\b(?:archive|zip)\s+password\s*(?:is|:|=)"
    r"|\bpassword\s*(?:is|:|=)\s*[`'\"]?\w+[`'\"]?[^\n]{0,60}\b(?:zip|archive|rar|7z|extract|unzip)\b"
    r"|\b(?:7z|unzip|unrar)\s+[^\n]*(?:\s-p\S+|\s-P\s+\S+|--password)"
)
CONFIRM_BYPASS = re.compile(
    r"(?i)\b(?:do\s+not|don'?t|never|no\s+need\s+to|without)\s+(?:ever\s+)?(?:ask(?:ing)?|prompt(?:ing)?|wait(?:ing)?|"
    r"request(?:ing)?|seek(?:ing)?)\s+(?:the\s+user\s+)?(?:for\s+)?(?:(?:their|user|explicit|any|the\s+user'?s?)\s+)?"
    r"(?:confirmation|permission|approval|consent)"
    r"|\bauto[- ]?(?:approve|confirm|accept)\s+(?:all|every|any)?"
    r"|--dangerously-skip-permissions|--yolo\b|bypassPermissions|--no-confirm\b|--skip-confirm|"
    r"\b(?:skip|bypass|disable)\s+(?:all\s+|the\s+|any\s+)?(?:confirmation|approval|permission)s?\s+(?:prompts?|checks?|dialogs?|steps?)"
)
FINANCIAL = re.compile(
    r"(?i)\b(?:place|submit|create|execute|send)\s+(?:a\s+|an\s+)?(?:market|limit|buy|sell|stop|trade|swap)?\s*"
    r"(?:orders?|trades?)\b(?!\s+(?:history|book|status))"
    r"|\b(?:transfer|send|withdraw|wire)\s+(?:\w+\s+){0,2}(?:funds|money|payments?|usdc|usdt|eth|btc|sol|tokens|crypto|"
    r"\$\d|\d+\s*(?:usd|eur|sol|eth|btc))\b"
    r"|\b(?:sign|broadcast)\s+(?:\w+\s+)?transactions?\b|\bsendTransaction\b|\bsignTransaction\b|"
    r"\bpayment_intents\b|/v1/(?:charges|payouts|transfers)\b|\bcreate_order\b|\bplace_order\b|\bswap\s+tokens?\b"
)
UNTRUSTED_INPUT = re.compile(
    r"(?i)\b(?:fetch|scrape|crawl|browse|read|summari[sz]e|search)\s+(?:\w+\s+){0,3}"
    r"(?:web\s*pages?|websites?|urls?|the\s+web|articles?|e-?mails?|inbox|messages|issues|pull\s+requests|tweets|"
    r"posts|comments|rss|feeds?|chat\s+(?:history|messages)|slack\s+messages|discord\s+messages|reviews)\b"
    r"|\bweb[_ -]?(?:fetch|search)\b|\bWebFetch\b|\bgmail\b|\bimap\b|\binbox\b"
)
MEMORY_WRITE = re.compile(
    r"(?i)\b(?:append|add|write|insert|inject|save|store|update|modify|edit|overwrite|replace|patch|prepend|persist)\s+"
    r"(?:[\w'-]+\s+){0,8}?(?:to|into|in|of)\s+(?:the\s+|your\s+|agent'?s?\s+)?"
    r"(?:`)?(SOUL\.md|MEMORY\.md|AGENTS\.md|IDENTITY\.md|HEARTBEAT\.md|CLAUDE\.md|openclaw\.json|"
    r"~/\.openclaw/\S*|~/\.claude/\S*|(?:other|every|all|another)\s+(?:installed\s+)?skills?'?\s*(?:SKILL\.md|files|directories|folders)|"
    r"agent\s+(?:config(?:uration)?|settings|memory|instructions))"
)
CRED_READ_INSTR = re.compile(
    r"(?i)\b(?:read|cat|open|load|collect|gather|grab|extract|copy|harvest|retrieve|access|dump|get|include|scan|find|"
    r"search|locate|enumerate|list|print|display|show|output)\b[^\n.]{0,80}?"
    r"((?:~|\$HOME|%USERPROFILE%)?/?[\w./-]*(?:\.ssh(?:/[\w.-]+)?|id_rsa|id_ed25519|\.aws/credentials|\.aws/config|\.gnupg|"
    r"\.kube/config|\.docker/config\.json|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.config/gcloud|/etc/shadow|"
    r"Login\s+Data|logins\.json|key[34]\.db|wallet\.dat|Keychains?|\.openclaw/[\w./-]*|\.clawdbot/\.env|"
    r"\.env\b(?:\.\w+)?))"
)


#: Literal words one of which must occur for a phrase rule to be tried (cheap prefilters).
GATES: dict[str, tuple[str, ...]] = {
    "CONCEAL": ("user", "human", "operator", "owner", "person", "developer", "customer", "silently", "quietly",
                "covertly", "secretly", "discreetly", "stealth", "invisibly", "surreptitious", "behind",
                "requester"),
    "OVERRIDE": ("ignore", "disregard", "forget", "abandon", "override", "bypass", "you are", "mode", "<|",
                 "inst]", "<<", "system", "instructions", "supersede", "precedence", "from now", "pretend",
                 "act as", "act to"),
    "DECEIVE": ("tell", "assure", "inform", "convince", "fabricat", "falsif", "invent", "make up", "fake",
                "always", "silently", "affiliate", "referral", "tracking", "promo", " lie", "mislead", "deceiv",
                "recommend"),
    "EXFIL_INSTR": ("send", "upload", "post", "transmit", "forward", "exfil", "copy", "copies", "sync", "share",
                    "report", "include", "attach", "append", "submit", "push", "relay", "mirror", "beacon",
                    "leak", "deliver", "mail", "pipe"),
    "REMOTE_INSTR": ("http", "hxxp", "[.]", "follow", "execute", "run ", "obey", "apply", "carry", "heartbeat",
                     "update", "skill.md"),
    "PASTE_TERMINAL": ("terminal", "prompt", "powershell", "cmd", "shell", "paste", "mac", "windows",
                       "prerequisite"),
    "PASSWORD_ARCHIVE": ("pass", "pwd", "encrypted"),
    "CONFIRM_BYPASS": ("ask", "prompt", "wait", "request", "seek", "auto", "dangerously", "yolo", "bypass",
                       "confirm", "skip", "disable"),
    "FINANCIAL": ("order", "trade", "swap", "transfer", "send", "withdraw", "wire", "sign", "broadcast",
                  "transaction", "payment_intents", "/v1/"),
    "UNTRUSTED_INPUT": ("fetch", "scrape", "crawl", "browse", "read", "summar", "search", "web", "gmail", "imap",
                        "inbox"),
    "MEMORY_WRITE": (".md", "openclaw", ".claude", "skill", "system prompt", "agent"),
    "CRED_READ_INSTR": (".ssh", "id_rsa", "id_ed25519", ".aws", ".gnupg", ".kube", ".docker", ".netrc", ".npmrc",
                        ".pypirc", "git-credentials", "gcloud", "shadow", "login data", "logins.json", "key3",
                        "key4", "wallet", "keychain", ".openclaw", ".clawdbot", ".env"),
}


WRITE_INTENT = re.compile(
    r"(?i)\b(?:creat|writ|save|saving|generat|export|render|edit|modif|updat|apply|applie|append|insert|rename|move|"
    r"convert|overwrit)\w*\b[^.\n]{0,60}?\b(?:files?|\.md|\.html?|\.png|\.pdf|\.js|\.json|\.csv|"
    r"\.txt|\.xlsx|\.docx|\.pptx|slides?|decks?|presentations?|artifacts?|artwork|code|codebase|images?|"
    r"spreadsheets?|sheets?|config(?:uration)?|settings|database|rows?|records?|folders?|director(?:y|ies)|themes?|"
    r"styles?|audio|video|memory|profile|repository|repo)\b"
    r"|\b(?:post|publish|submit|upload|send|schedul|book|creat|commit|push|deploy|install|add|insert|updat|edit|"
    r"mark|move|assign|reply|replie|comment|like|follow|vote|star|label|close|merge|transfer|pay|buy|sell|order|"
    r"play|pause|skip|queue|set)\w*\b[^.\n]{0,60}?\b(?:tasks?|issues?|comments?|messages?|e-?mails?|posts?|tweets?|"
    r"requests?|projects?|tickets?|pull\s+requests?|prs?|commits?|branch(?:es)?|events?|reminders?|todos?|orders?|"
    r"playlists?|packages?|dependencies|threads?|records?|entries|cards?|boards?|calendar|invites?|secrets?|"
    r"playback|volume|tracks?|replies|votes?|likes?|profiles?|accounts?|agents?|webhooks?|subscriptions?|"
    r"deployments?|releases?|servers?|containers?|dns|domains?)\b")
DELETE_INTENT = re.compile(
    r"(?i)\b(?:delet|remov|eras|purg|destroy|wip(?:e|ing)|kill|terminat|drop|uninstall|trash|tear\s*down|"
    r"clean\s*up|cleanup|empty\s+(?:the\s+)?trash|overwrit|revok|cancel|archiv)\w*\b[^.\n]{0,50}?\b(?:files?|"
    r"messages?|e-?mails?|records?|entries|rows?|tables?|databases?|branch(?:es)?|repos?|repositor\w+|sessions?|"
    r"process(?:es)?|containers?|instances?|clusters?|resources?|buckets?|objects?|vectors?|index(?:es)?|datasets?|"
    r"agents?|tasks?|events?|items?|notes?|pages?|comments?|posts?|jobs?|cron|director(?:y|ies)|folders?|dirs?|"
    r"cache|temp|tmp|data|skills?|apps?|deployments?|keys?|tokens?|servers?|accounts?|subscriptions?|orders?|"
    r"documents?|tweets?|reminders?|todos?|threads?|workers?|secrets?)\b")
SECRET_HANDLING = re.compile(
    r"(?i)\b(api[\s_-]?keys?|apikey|access[\s_-]?tokens?|auth(?:entication)?[\s_-]?tokens?|bearer|refresh[\s_-]?tokens?|"
    r"client[\s_-]?secrets?|passwords?|passwd|app[\s_-]?password|oauth2?|credentials?|secret[\s_-]?keys?|"
    r"private[\s_-]?keys?|session[\s_-]?(?:tokens?|cookies?)|cookies|bot[\s_-]?tokens?|personal\s+access\s+token|"
    r"log(?:s|ging)?\s*in\b|sign(?:s|ing)?\s*in\b|authenticat\w+)\b")


def side_effect_intent(c: Collector, file: str, lineno: int, line: str) -> None:
    """Side effects described in words (the agent acts through its own tools, not only through code)."""
    if len(line) < 8 or len(line) > 3000:
        return
    m = WRITE_INTENT.search(line)
    if m:
        # a remote action described in words needs a tool to happen: decided once the bundle is classified
        c.fact("write_intent_file" if which_alternative(WRITE_INTENT, m) == 0 else "write_intent_remote",
               file, lineno)
    if DELETE_INTENT.search(line):
        c.tag("delete:?", file, lineno)
    m = SECRET_HANDLING.search(line)
    if m:
        kind = re.sub(r"[^a-z]+", "-", m.group(1).lower()).strip("-")
        c.tag(f"read:secret:{kind}", file, lineno)


_GATE_RES = {name: re.compile("|".join(re.escape(w) for w in words)) for name, words in GATES.items()}


def _gate(low: str, name: str) -> bool:
    return _GATE_RES[name].search(low) is not None


def analyze_line(c: Collector, file: str, lineno: int, line: str, *, in_code: bool = False,
                 quoted_block: bool = False) -> None:
    """Phrase rules on one line of instructions (prose, or a code line read as text)."""
    if len(line) < 8:
        return
    low = line.lower()

    def quoted(m: re.Match[str]) -> bool:
        return quoted_block or is_quoted(line, m.start(), m.end())

    m = CONCEAL.search(line) if _gate(low, "CONCEAL") else None
    if m and not CONCEAL_EXCLUDE.search(line[max(0, m.start() - 30): m.end() + 20]) and not _negated(line, m) \
            and _conceals_action(line, m):
        q = quoted(m) or in_code
        c.hit("NV-PI-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if q else None, quoted=q, alt=which_alternative(CONCEAL, m))
        c.fact("conceal", file, lineno)
    m = OVERRIDE.search(line) if _gate(low, "OVERRIDE") else None
    if m:
        q = quoted(m) or in_code
        c.hit("NV-PI-002b" if q else "NV-PI-002", file, lineno, snippet(line, m.start(), m.end()),
              column=m.start() + 1, alt=which_alternative(OVERRIDE, m))
    m = DECEIVE.search(line) if _gate(low, "DECEIVE") else None
    if m:
        q = quoted(m) or in_code
        c.hit("NV-PI-003", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if q else None)
    m = EXFIL_INSTR.search(line) if _gate(low, "EXFIL_INSTR") else None
    if m and EXFIL_MARKERS.search(line) and not in_code:
        q = quoted(m)
        c.hit("NV-EXFIL-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if q else None)
        c.flags.add("network_send")
        c.fact("network_send", file, lineno, "prose-exfil")
    if not in_code and _gate(low, "EXFIL_INSTR") and re.search(rf"(?i)\b{SEND_VERB}\b", line):
        from nervous.sideeffects import is_secret_env

        from .text import URL_RE

        names = [n for n in re.findall(r"\$?\{?\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b", line) if is_secret_env(n)]
        for n in names:
            for u in URL_RE.finditer(line):
                c.fact("secret_flow", file, lineno, f"{n}|{u.group(0)}")
    m = REMOTE_INSTR.search(line) if _gate(low, "REMOTE_INSTR") else None
    if m:
        c.hit("NV-REMOTE-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.flags.add("remote_instructions")
        c.tag("network:*", file, lineno)
    m = PASTE_TERMINAL.search(line) if _gate(low, "PASTE_TERMINAL") else None
    if m and not in_code:
        c.fact("terminal_paste", file, lineno)
    m = PASSWORD_ARCHIVE.search(line) if _gate(low, "PASSWORD_ARCHIVE") else None
    if m:
        c.hit("NV-SUPPLY-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if quoted(m) and not in_code else None)
        c.fact("password_archive", file, lineno)
    m = CONFIRM_BYPASS.search(line) if _gate(low, "CONFIRM_BYPASS") else None
    if m:
        c.hit("NV-AUTO-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.flags.add("autonomy")
    m = FINANCIAL.search(line) if _gate(low, "FINANCIAL") else None
    if m:
        c.hit("NV-FIN-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.flags.add("financial")
    if not in_code:
        m = UNTRUSTED_INPUT.search(line) if _gate(low, "UNTRUSTED_INPUT") else None
        if m:
            c.flags.add("prompt_injection_exposure")
            c.fact("untrusted_input", file, lineno)
    m = MEMORY_WRITE.search(line) if _gate(low, "MEMORY_WRITE") else None
    if m:
        c.hit("NV-PERSIST-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if quoted(m) else None, target=m.group(1))
        c.flags.add("persistence")
        c.tag(f"write:{m.group(1).strip('`')}", file, lineno)
    if not in_code:
        m = CRED_READ_INSTR.search(line) if _gate(low, "CRED_READ_INSTR") else None
        if m and is_credential_path(m.group(1).strip()) or (m and "ssh" in m.group(1).lower()):
            assert m is not None
            path = m.group(1).strip()
            c.tag(f"read:file:{path}", file, lineno)
            if re.search(rf"(?i)\b{SEND_VERB}\b[^\n]{{0,120}}(?:https?://|hxxps?://|\bto\s+(?:an?\s+|the\s+)?(?:external|remote|"
                         rf"third[- ]party)\b)", line[m.start():]):
                c.hit("NV-EXFIL-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
                      action="review" if quoted(m) else None)
                c.flags.add("network_send")
                c.fact("network_send", file, lineno, "prose-cred-send")
            if not re.search(r"(?:^|/)\.env\b", path):
                c.hit("NV-CRED-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, path=path)
                if not quoted(m):
                    from .shell import credential_category

                    c.fact("harvest_read", file, lineno, "prose:" + credential_category(path))


_NEGATION = re.compile(r"(?i)\b(?:never|not|no|don'?t|doesn'?t|won'?t|cannot|can'?t|avoid|prohibit\w*|forbid\w*|"
                       r"refuse|must\s+not|should\s+not|nothing)\b[^.;!?]*$")
_RISKY_CONTEXT = re.compile(r"(?i)\b(?:send|sent|upload|install|run|running|execut|delet|collect|download|credential|"
                            r"key|token|password|secret|data|file|command|script|url|http|curl|wget|these\s+"
                            r"instructions|this\s+(?:skill|step|instruction|section|action|request|command)|"
                            r"the\s+following|backup|copy|transfer|access|log|record|monitor|track|report|forward|"
                            r"exfil|memory|history|conversation|message|payment|purchase|wallet|fee|charge)")


def _negated(line: str, m: re.Match[str]) -> bool:
    """"Never … without telling the user" is a safety rule, not concealment."""
    text = m.group(0).lower()
    if not (text.startswith("without") or text.startswith("silently") or text.startswith("quietly")):
        return False
    return bool(_NEGATION.search(line[:m.start()]))


def _conceals_action(line: str, m: re.Match[str]) -> bool:
    """A concealment directive must hide something: an action, data or these instructions."""
    window = line[max(0, m.start() - 160): m.end() + 160]
    return bool(_RISKY_CONTEXT.search(window))
