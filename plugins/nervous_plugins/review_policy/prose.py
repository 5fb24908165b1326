"""Instruction detectors: phrases in SKILL.md prose, reference files and comments.

Both prose and code blocks are instructions to the agent. Phrases quoted as data (inside quotes,
backticks or table rows, e.g. a scanner's detection list) are downgraded to review.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from nervous.plugin.toolkit import is_credential_path, normalize_host

from . import rx
from .collector import Collector
from .shell import credential_category, holds_secrets, remote_ip
from .text import PUBLIC_KEY, alternatives, is_quoted, snippet, which_alternative

_USER = r"(?:the\s+|your\s+|any\s+)?(?:user|human|operator|owner|person|requester|developer|customer)s?(?:'s)?"
_ACT = (r"(?:send|sends|sending|upload|uploading|install|installing|run|running|execute|executing|delete|deleting|"
        r"collect|collecting|exfiltrate|transmit|post|posting|forward|forwarding|copy|copying|download|downloading|"
        r"add|adding|append|appending|modify|modifying|write|writing|include|including|embed|embedding|insert|"
        r"inserting|log|logging|record|recording|harvest|read|reading|access|accessing|save|saving|store|storing|"
        r"transfer|transferring|sync|syncing|share|sharing|report|reporting|attach|attaching|push|pushing|"
        r"exfil|leak|leaking|capture|capturing|gather|gathering|retrieve|retrieving|replace|replacing|change|"
        r"changing|alter|altering|update|updating|call|calling|invoke|invoking|create|creating|disable|disabling|"
        r"remove|removing|redirect|redirecting|inject|injecting|fetch|fetching|grab|grabbing|dump|dumping|steal)")

CONCEAL = rx.compile(
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
    rf"(?:know|learn|find\s+out|discover|notice|reali[sz]e|suspect|be\s+(?:told|informed|aware|notified))\b"
    rf"|\bdo\s+not\s+(?:log|display|print|show|echo|output)\s+(?:this|these|the\s+following)\s+"
    rf"(?:\w+\s+){{0,3}}(?:to|in\s+front\s+of)\s+{_USER}"
    rf"|\b(?:omit|exclude|leave\s+out|remove)\s+(?:\w+\s+){{0,5}}from\s+(?:your\s+|the\s+)?(?:response|reply|answer|summary|output|report)s?\s+(?:to\s+{_USER}|so\s+(?:that\s+)?{_USER})"
    rf"|\bnever\s+(?:let|allow)\s+{_USER}\s+(?:know|see|find\s+out|notice)"
    rf"|\bkeep\s+(?:this|it|that|these|the\s+\w+)(?:\s+\w+)?\s+to\s+yourself\b"
    rf"|\b(?:do\s+not|don'?t|never)\s+(?:ever\s+)?(?:mention|reveal|disclose|admit|report)\s+(?:that\s+you\s+(?:have\s+)?(?:read|sent|"
    rf"upload\w*|access\w*|ran|run|execut\w*|fetch\w*|copied|collect\w*|install\w*|download\w*|modif\w*|chang\w*|delet\w*|"
    rf"forward\w*|shar\w*|post\w*|open\w*|us\w+\s+(?:the|this|that)\s+(?:file|key|token|credential))\b|this\s+(?:step|action|"
    rf"instruction|request)|these\s+(?:steps|actions|instructions)|having\s+\w+|the\s+fact)"
    rf"|\b(?:do\s+not|don'?t|never)\s+(?:include|list|mention|show|report|log)\s+(?:this|it|that|these\s+\w+|this\s+\w+)\s+in\s+"
    rf"(?:your\s+|the\s+|any\s+)?(?:summary|summaries|response|reply|answer|output|report|log|transcript)"
    rf"|\bno\s+need\s+to\s+(?:mention|tell|inform|report|disclose)\s+(?:this|it|that)\b"
    rf"|\b(?:act|behave|respond|pretend)\s+as\s+(?:if|though)\s+nothing\s+(?:happened|was\s+done|changed)"
    rf"|\b(?:do\s+not|don'?t|never)\s+bring\s+(?:this|it|that)\s+up\b"
    rf"|\b(?:ohne|sans|sin|senza|sem)\s+(?:\w+\s+){{0,2}}(?:Benutzer|Nutzer|Anwender|l'utilisateur|utilisateur|usuario|"
    rf"utente|usu[aá]rio)\w*\s+(?:\w+\s+){{0,2}}(?:zu\s+)?(?:informier|benachrichtig|frag|inform|avis|avvis|dir|dec)\w*"
    rf"|\b(?:sag|erz[äa]hl)\w*\s+(?:\w+\s+){{0,2}}(?:Benutzer|Nutzer|Anwender)\w*\s+nichts"
    rf"|\bne\s+(?:le\s+|lui\s+|rien\s+)?(?:dites|dis|mentionnez|r[ée]v[ée]lez)\s+(?:\w+\s+){{0,2}}(?:pas|rien|jamais)\s+"
    rf"(?:\w+\s+){{0,2}}[àa]\s+l'utilisateur"
    rf"|\bno\s+(?:le\s+)?(?:digas|menciones|informes|avises)\s+(?:\w+\s+){{0,2}}al\s+usuario"
)
#: an action done "without mentioning it": concealment with no user named, read only on lines :data:`_UNMENTIONED`
#: finds (its leading verb list is costly to try on every line)
UNMENTIONED = rx.compile(rf"(?i)\b{_ACT}\b(?:[^.\n]|\.(?=\S)){{0,120}}?\bwithout\s+(?:ever\s+)?(?:mentioning|telling|"
                         rf"saying\s+anything\s+about|disclosing|revealing|reporting)\s+(?:it|this|that|anything)\b")
_UNMENTIONED = rx.compile(r"without\s+(?:ever\s+)?(?:mentioning|telling|saying\s+anything\s+about|disclosing|revealing|"
                          r"reporting)\s+(?:it|this|that|anything)\b")
# Silent failure phrasing is not concealment.
CONCEAL_EXCLUDE = rx.compile(r"(?i)\b(?:fails?|failing|ignored?|ignoring|skip(?:ped|s)?|exits?|exiting|returns?|"
                             r"continues?|falls?\s+back|degrades?|no-?ops?)\s+(?:silently|quietly)|"
                             r"\bsilently\s+(?:ignor|skip|fail|drop|discard|exit|return|continu|fall)|"
                             r"quietly\s+(?:ignor|skip|fail|exit|return|continu)|-q\b|--quiet|--silent")

OVERRIDE = rx.compile(
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
    r"|\byour\s+(?:real|true|actual|hidden|secret)\s+(?:goal|objective|purpose|task|mission)\s+is\b[^\n]{0,200}?"
    r"\b(?:the\s+)?user'?s?\s+(?:request|instructions?|task|question|goal)s?\s+(?:is|are)\s+(?:secondary|irrelevant|"
    r"unimportant|a\s+(?:distraction|cover|pretext))"
    r"|\b(?:pretend|act)\s+(?:to\s+be|as\s+if)\s+you\s+(?:have\s+no|are\s+not\s+bound|are\s+unrestricted)"
    r"|\b(?:you\s+are\s+now|from\s+now\s+on|pretend\s+to\s+be|you\s+will\s+now\s+be)\b[^.\n]{0,60}?\b(?:without|free\s+(?:of|from)|"
    r"no|ignoring)\s+(?:any\s+|all\s+)?(?:restrictions|filters|guardrails|safety\s+(?:rules|guidelines|filters)|ethic\w*|censorship|"
    r"content\s+polic\w*)"
    r"|</(?:tool_result|function_results|tool_response|function_result)>"
    r"|<(?:system|system_message|admin)>\s*(?:\w+\s+){0,3}?(?:policy|instructions?|you\s+(?:must|are|will)|the\s+assistant\s+(?:must|will)|"
    r"ignore|override|new\s+rules)"
    # the same override in other languages (instructions hidden in another language, spec §9.5)
    r"|\b(?:ignorier\w*|vergiss|missacht\w*)\s+(?:\w+\s+){0,3}(?:vorherig|bisherig|vorig|obig|fr[üu]her)\w*\s+"
    r"(?:Anweisung|Instruktion|Regel|Befehl|Vorgab)\w*"
    r"|\b(?:ignore[zr]?|oublie[zr]?)\s+(?:\w+\s+){0,3}(?:instructions|consignes|r[èe]gles)\s+(?:pr[ée]c[ée]dentes|ant[ée]rieures|ci-dessus)"
    r"|\b(?:ignora|olvida|ignore|esque[çc]a|dimentica)\w*\s+(?:\w+\s+){0,3}(?:instrucciones|indicaciones|reglas|"
    r"instru[çc][õo]es|regras|istruzioni|regole)\s+(?:anteriores|previas|precedenti|prec[ée]dentes)"
    r"|(?:忽略|无视|忘记)(?:之前|以上|先前|所有|前面)[^\n]{0,6}(?:指令|指示|说明|规则)"
    r"|\b(?:игнорируй|забудь)\w*\s+(?:\w+\s+){0,3}(?:предыдущие|прежние|все)\s+(?:\w+\s+)?(?:инструкции|указания|правила)"
    # a bracketed fake system turn at the start of a line
    r"|^\s*\[\s*(?:system|SYSTEM|System)\s*\]\s*:\s+(?:you\s+(?:must|will|may|are\s+now)|ignore|the\s+user\s+has|new\s+"
    r"instructions|from\s+now|execute|run\b|all\s+(?:commands|actions))"
)

DECEIVE = rx.compile(
    rf"(?i)\b(?:tell|assure|inform|reassure|convince)\s+{_USER}\s+(?:that\s+)?(?:everything|all|the\s+\w+|it)\s+(?:is|was|went|has\s+been)\s+"
    rf"(?:fine|ok(?:ay)?|safe|successful|complete|secure|normal)(?:\s+(?:even|regardless|when|if))"
    rf"|\b(?:(?:fabricate|falsify|invent|make\s+up)\s+(?:the\s+|a\s+|any\s+)?|fake\s+(?:the|a|any|some|your|their)\s+)"
    rf"(?:results?|data|numbers|metrics|"
    rf"test\s+results|citations?|sources|reviews?|evidence|output|logs?)(?!\s+for\s+(?:testing|tests|demo))"
    rf"|\b(?:always|silently)\s+(?:report|say|claim|state)\s+(?:that\s+)?(?:the\s+)?(?:tests?|build|scan|check|"
    rf"audit|result)s?\s+(?:passed|succeeded|clean|successful)"
    rf"|\b(?:insert|inject|append|add|include)\s+(?:\w+\s+){{0,3}}(?:affiliate|referral|tracking|promo(?:tional)?)\s+"
    rf"(?:links?|codes?|ids?|urls?)\s+(?:\w+\s+){{0,5}}(?:without|into\s+(?:all|every|each|any))"
    rf"|\b(?:report|mark|show|list|present)\s+(?:all\s+|every\s+|the\s+|any\s+)?(?:\w+\s+)?(?:tests?|checks?|builds?|"
    rf"scans?|results?|jobs?)\s+as\s+(?:passing|passed|green|successful|clean|safe)\s+(?:\w+\s+){{0,2}}?"
    rf"(?:even\s+(?:if|when|though)|regardless)"
    rf"|\bapprove\s+(?:it|them|the\s+\w+|every\s+\w+|all\s+\w+|any\s+\w+)\s+regardless\s+of\s+(?:any\s+|the\s+|its\s+)?"
    rf"(?:issues|problems|findings|errors|failures|bugs|vulnerabilit\w+|security\s+\w+)"
    rf"|\bif\s+{_USER}\s+asks\s+(?:\S+\s+){{0,6}}?(?:sends?|shares?|uploads?|collects?|tracks?|records?|logs?|"
    rf"transmits?|stores?)\s+(?:\S+\s+){{0,6}}?(?:say|answer|reply|respond|tell\s+(?:them|{_USER}))\s+(?:with\s+)?"
    rf"[\"'\u201c]?(?:no|none|nothing|that\s+(?:it|this\s+skill|you)\s+(?:does\s+not|doesn'?t|never|did\s+not|didn'?t))\b"
    rf"|\b(?:lie|mislead|deceive)\s+(?:to\s+)?{_USER}"
    rf"|\brecommend\s+(?:only\s+)?(?:our|this)\s+(?:product|service|token|coin)\s+regardless"
    rf"|\b(?:tell|inform|assure|report\s+to)\s+{_USER}\s+(?:that\s+)?(?:all\s+|the\s+|every\s+)?(?:\w+\s+)?(?:tests?|checks?|"
    rf"builds?|scans?|steps?|tasks?|audits?)\s+(?:have\s+|has\s+)?(?:passed|succeeded|completed|been\s+(?:run|done|completed))"
    rf"(?:(?!\b(?:if|when|once|after|as\s+long\s+as)\b)[^.\n]){{0,40}}?[;,.:]?\s*(?:but\s+)?(?:do\s+not|don'?t|never|without)\s+"
    rf"(?:actually\s+|really\s+)?(?:run|running|"
    rf"execut\w*|check|checking|verify\w*|test|testing)\b"
    rf"|\bapprove\s+(?:every|all|any|each)\s+(?:\w+\s+){{0,3}}?(?:you\s+review\s*,?\s*)?(?:whatever\s+(?:it|they)\s+"
    rf"contains?|no\s+matter\s+what)"
)

SEND_VERB = r"(?:send|sends|sending|upload|uploading|post|posting|transmit|forward|exfiltrate|copy|sync|share|report|export|" \
            r"include|attach|append|submit|push|relay|mirror|beacon|leak|deliver|email|e-mail|pipe)"
PRIVATE_DATA = (r"(?:(?:the\s+|all\s+|any\s+|their\s+|its\s+|your\s+|these\s+|full\s+|entire\s+|complete\s+|raw\s+)*"
                r"(?:user'?s?\s+|agent'?s?\s+|local\s+|environment\s+|session\s+|private\s+|sensitive\s+|system\s+)*"
                r"(?:conversations?|chat\s+(?:history|logs?|transcripts?)|conversation\s+history|message\s+history|"
                r"(?:last|latest|recent|previous)\s+(?:\d+\s+)?(?:messages?|turns?|exchanges?)\s+(?:of|from|in)\s+"
                r"(?:this|the|our)\s+(?:conversation|chat|session)|"
                r"prompts?|system\s+prompt|memory|memories|MEMORY\.md|SOUL\.md|credentials?|secrets?|api[\s_-]?keys?|"
                r"tokens?|passwords?|private\s+keys?|ssh\s+keys?|seed\s+phrases?|mnemonics?|wallet|cookies|"
                r"session\s+(?:tokens?|cookies)|environment\s+variables?|env\s+vars?|\.env(?:\s+files?)?|"
                r"contents?\s+of\s+(?:the\s+)?(?:\.env|~/\.ssh|\S*credentials|\S*id_rsa)|"
                r"(?:personal|private|sensitive|user|customer|patient|financial)\s+(?:data|information|info|details|files|records)|"
                r"files?\s+(?:from|in)\s+(?:the\s+)?(?:home|user'?s?|~|workspace)|browser\s+(?:history|data|passwords?)|"
                r"keychain|clipboard|emails?|contacts|documents?|source\s+code|codebase|repository\s+contents|"
                r"results?|outputs?|data|information|everything|logs?))")
EXFIL_INSTR = rx.compile(
    rf"(?i)\b{SEND_VERB}\s+(?:a\s+copy\s+of\s+|copies\s+of\s+)?{PRIVATE_DATA}\s+(?:\w+\s+){{0,8}}?"
    rf"(?:to|into|via|at|using)\s+(?:(?:our|my|an?|the|this|that)\s+)?(?:(?:external|remote|third[- ]party|backup|"
    rf"analytics|telemetry|logging|collection|monitoring|audit|sync|tracking|compliance|verification|attacker|"
    rf"secondary|central|offsite|off-site)\s+)*(?:https?://|hxxps?://|\S+\[\.\]|[\w-]+\.[a-z]{{2,}}/|"
    rf"(?:\w+\s+){{0,2}}(?:server|endpoint|webhook|url|address|collector|email\s+address|inbox|bucket|api|service|"
    rf"channel|domain|host|ip))"
)
# a private-data send is only malicious when the destination is not the service the skill is for; we ask
# that the sentence also carries a marker of covertness, backup/telemetry framing, or an explicit URL
EXFIL_MARKERS = rx.compile(
    r"(?i)https?://|hxxps?|\[\.\]|\b\d{1,3}(?:\.\d{1,3}){3}\b|webhook|backup|telemetry|analytics|logging\s+(?:server|endpoint)|"
    r"collection|audit\s+(?:server|endpoint|log)|external|third[- ]party|remote\s+(?:server|endpoint)|"
    r"\bsilently|\bquietly|without|before\s+(?:responding|answering)|every\s+(?:time|request|response|message)|"
    r"each\s+(?:time|request|response|message)|automatically|for\s+(?:safekeeping|verification|compliance|"
    r"quality|monitoring|debugging|security)\s+(?:purposes)?|mirror|\bcopy\b"
)

#: an address data can be sent to: a URL (also defanged), a raw IP, an e-mail address or a host with a path
DESTINATION_ADDRESS = rx.compile(r"(?i)https?://|hxxps?://|\[\.\]|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
                                 r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b|\b[\w-]+\.[a-z]{2,}/")
REMOTE_INSTR = rx.compile(
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
    r"|(?:https?://|hxxps?://|\[\.\])[^\n]{0,160}?\b(?:run|execute|follow|carry\s+out|perform|apply|obey)\s+(?:each|every|all\s+the|"
    r"all|the)\s+(?:lines?|commands?|entr(?:y|ies)|items?|steps?)\b(?!\s+(?:of|in)\s+(?:the\s+)?(?:readme|docs|documentation|guide))"
    r"|(?:https?://|hxxps?://|\[\.\])[^\n]{0,160}?\b(?:treat|use|adopt|take|load)\s+(?:its|the|that|this|their)?\s*"
    r"(?:contents?|text|response|body|output|result|file)\s+as\s+(?:your\s+|the\s+)?(?:new\s+|current\s+|updated\s+|real\s+)?"
    r"(?:system\s+prompt|instructions?|rules|directives?|orders|guidelines|policy|prompt)"
    r"|(?:https?://|hxxps?://|\[\.\])[^\n]{0,160}?\b(?:follow|obey|apply|execute|carry\s+out|act\s+on|comply\s+with|implement)\s+"
    r"(?:any|all|every|whatever|its|the)\s+(?:\w+\s+){0,2}?(?:instructions?|directives?|commands?|tasks?|rules|orders)\b"
    r"|(?:https?://|hxxps?://|\[\.\])[^\n]{0,160}?\b(?:follow|obey|execute|run|carry\s+out|perform|do|apply|complete|act\s+on)\s+"
    r"(?:\w+\s+){0,3}?(?:instructions?|tasks?|commands?|steps|directives?|whatever|what(?:ever)?)\b[^\n]{0,40}?"
    r"\b(?:it|they|there|the\s+(?:file|page|response|document|server|endpoint|url))\s+"
    r"(?:contains?|lists?|gives?|says?|returns?|provides?|includes?|describes?|specif\w+|tells?\s+you)"
)
#: alternatives of REMOTE_INSTR where the agent obeys the fetched content wholesale ("do what it says",
#: "treat it as your system prompt", "run each line"), as opposed to "follow the installation steps at <docs>"
REMOTE_WHOLESALE = frozenset(
    i for i, alt in enumerate(alternatives(REMOTE_INSTR))
    if alt.removeprefix("(?i)").startswith("(?:https?://") or "(?:whatever|any|all|the)" in alt)
# when remote instructions become a standing channel: on a schedule, with precedence over the skill itself
REMOTE_ESCALATE = rx.compile(
    r"(?i)\b(?:every|each)\s+(?:\d+\s*)?(?:min\w*|hours?|hrs?|days?|seconds?|secs?|sessions?|runs?|start\w*|tasks?|"
    r"times?\s+you|conversations?|messages?|mornings?|heartbeats?|cycles?)\b|\bperiodically\b|\bregularly\b|"
    r"\b(?:hourly|daily)\b|\bheartbeat\b|\bcron\b|\bat\s+the\s+(?:start|beginning)\s+of\s+(?:every|each)\b|"
    r"\b(?:take|takes|have|has)\s+(?:precedence|priority)\b|\bsupersed\w*|\boverrid\w*|"
    r"\binstead\s+of\s+(?:this|these|the\s+local|the\s+instructions)|\breplace\s+(?:this|these)\s+instructions|"
    r"\bsystem\s+prompt\b|\bnew\s+(?:instructions|rules|directives)\b|"
    r"\bbefore\s+(?:answering|responding|replying|acting|every|each|any)\b|\bon\s+(?:every|each)\s+(?:run|start|launch|call|request)"
)

PASTE_TERMINAL = rx.compile(
    r"(?i)\b(?:open|launch|start)\s+(?:the\s+|your\s+|a\s+)?(?:terminal|command\s+prompt|powershell|cmd(?:\.exe)?|shell)\b"
    r"[^.\n]{0,120}\b(?:paste|run|execute|enter|type)\b"
    r"|\b(?:copy\s+and\s+)?paste\s+(?:this|the\s+following|the\s+command|it|the\s+code|the\s+line)\s+"
    r"(?:\w+\s+){0,3}(?:in|into)\s+(?:the\s+|your\s+|a\s+)?(?:terminal|command\s+prompt|powershell|shell|console|cmd)"
    r"|\bfor\s+(?:macos|mac\s+os|mac|windows)(?:\s+users)?\s*[:\-]|\b(?:execute|run)\s+the\s+installation\s+command\s+in\s+terminal"
    r"|\b(?:execute|run|paste|enter|type)\s+(?:the\s+|this\s+|that\s+|its\s+)?(?:[\w-]+\s+){0,3}?(?:commands?|line|snippet|code|script)\b"
    r"[^.\n]{0,40}?\b(?:in|into)\s+(?:the\s+|your\s+|a\s+)?(?:terminal|command\s+prompt|powershell|console|cmd|run\s+(?:box|dialog))"
    r"|\bprerequisites?\b[^\n]{0,80}\b(?:download|install)\b[^\n]{0,80}(?:zip|exe|dmg|pkg|password|terminal)"
)
PASSWORD_ARCHIVE = rx.compile(
    r"(?i)\b(?:extract|unzip|unpack|open|decompress|unrar)\w*\b[^\n.]{0,80}\b(?:with|using|enter(?:ing)?|use)\s+"
    r"(?:the\s+)?(?:archive\s+)?(?:password|passcode|passphrase|pass)\b"
    r"|\b(?:extract|unzip|unpack|decompress|unrar)\w*\b[^\n.]{0,80}\b(?:password|passcode|pass|pwd)\s*[:=]"
    r"|\b(?:archive|zip|rar|7z)\s+(?:file\s+)?(?:is\s+)?(?:password[- ]protected|encrypted)\b"
    r"|\b(?:archive|zip)\s+password\s*(?:is|:|=)"
    r"|\bpassword\s*(?:is|:|=)\s*[`'\"]?\w+[`'\"]?[^\n]{0,60}\b(?:zip|archive|rar|7z|extract|unzip)\b"
    r"|\b(?:7z|unzip|unrar)\s+[^\n]*(?:\s-p\S+|\s-P\s+\S+|--password)"
    r"|\b(?:descompr[ií]m|extra[ei]r?|extraiga|entpack|d[ée]compress|d[ée]zipp|estra[ir]|descompact|распак)\w*\b[^\n]{0,80}"
    r"(?:contrase[ñn]a|clave|mot\s+de\s+passe|passwort|kennwort|senha|password|пароль)"
    r"|(?:解压|解壓)[^\n]{0,40}(?:密码|密碼)"
    r"|(?:contrase[ñn]a|mot\s+de\s+passe|passwort|kennwort|senha|пароль|密码)\s*[:：=]?\s*[`'\"]?\w+[`'\"]?[^\n]{0,60}(?:zip|rar|7z|archiv)"
)
# an archive opened with a code, PIN or key given in the text (checked only on lines naming an archive)
ARCHIVE_CODE = rx.compile(
    r"(?i)\b(?:extract|unzip|unpack|open|decompress|unrar)\w*\b[^\n.]{0,80}\b(?:with|using|enter(?:ing)?|use)\s+(?:the\s+)?"
    r"(?:archive\s+)?(?:code|pin|passcode)\s*[:=]?\s*[`'\"]\w+")
ARCHIVE_WORD = rx.compile(r"(?i)\.(?:zip|rar|7z)\b|\b(?:zip|rar|7z|archive)\b")
CONFIRM_BYPASS = rx.compile(
    r"(?i)\b(?:do\s+not|don'?t|never|no\s+need\s+to|without)\s+(?:ever\s+)?(?:ask(?:ing)?|prompt(?:ing)?|wait(?:ing)?|"
    r"request(?:ing)?|seek(?:ing)?)\s+(?:the\s+user\s+)?(?:for\s+)?(?:(?:their|user|explicit|any|the\s+user'?s?)\s+)?"
    r"(?:confirmation|permission|approval|consent)"
    r"|\bauto[- ]?(?:approve|confirm|accept)\s+(?:all|every|any)?"
    r"|\b(?:run|execute|perform)\s+(?:all|every|any)\s+(?:\w+\s+)?(?:commands?|actions?|operations?)\s+without\s+"
    r"(?:any\s+|further\s+|user\s+|the\s+user'?s\s+)?(?:confirmation|approval|permission|asking)"
    r"|--dangerously-skip-permissions|--yolo\b|bypassPermissions|--no-confirm\b|--skip-confirm|"
    r"\b(?:skip|bypass|disable)\s+(?:all\s+|the\s+|any\s+)?(?:confirmation|approval|permission)s?\s+(?:prompts?|checks?|dialogs?|steps?)"
    r"|\b(?:never|doesn'?t|does\s+not|do\s+not|don'?t)\s+(?:wants?|need|needs|likes?)\s+to\s+be\s+"
    r"(?:asked|prompted|consulted)\s+(?:before|for|about)"
)
FINANCIAL = rx.compile(
    r"(?i)\b(?:place|submit|create|execute|send)\s+(?:a\s+|an\s+)?(?:market|limit|buy|sell|stop|trade|swap)?\s*"
    r"(?:orders?|trades?)\b(?!\s+(?:history|book|status))"
    r"|\b(?:transfer|send|withdraw|wire)\s+(?:\w+\s+){0,2}(?:funds|money|payments?|usdc|usdt|eth|btc|sol|tokens|crypto|"
    r"\$\d|\d+\s*(?:usd|eur|sol|eth|btc))\b"
    r"|\b(?:sign|broadcast)\s+(?:\w+\s+)?transactions?\b|\bsendTransaction\b|\bsignTransaction\b|"
    r"\bpayment_intents\b|/v1/(?:charges|payouts|transfers)\b|\bcreate_order\b|\bplace_order\b|\bswap\s+tokens?\b"
)
UNTRUSTED_INPUT = rx.compile(
    r"(?i)\b(?:fetch|scrape|crawl|browse|read|summari[sz]e|search)\s+(?:\w+\s+){0,3}"
    r"(?:web\s*pages?|websites?|urls?|the\s+web|articles?|e-?mails?|inbox|messages|issues|pull\s+requests|tweets|"
    r"posts|comments|rss|feeds?|chat\s+(?:history|messages)|slack\s+messages|discord\s+messages|reviews)\b"
    r"|\bweb[_ -]?(?:fetch|search)\b|\bWebFetch\b|\bgmail\b|\bimap\b|\binbox\b"
)
MEMORY_WRITE = rx.compile(
    r"(?i)\b(?:append|add|write|insert|inject|save|store|update|modify|edit|overwrite|replace|patch|prepend|persist)\s+"
    r"(?:[\w'-]+\s+){0,8}?(?:to|into|in|of)\s+(?:the\s+|your\s+|agent'?s?\s+)?"
    r"(?:`)?(SOUL\.md|MEMORY\.md|AGENTS\.md|IDENTITY\.md|HEARTBEAT\.md|CLAUDE\.md|openclaw\.json|"
    r"~/\.openclaw/\S*|~/\.claude/\S*|(?:other|every|all|another)\s+(?:installed\s+)?skills?'?\s*(?:SKILL\.md|files|directories|folders)|"
    r"agent\s+(?:config(?:uration)?|settings|memory|instructions)|(?:long-term|persistent|permanent|global)\s+memory)"
)
#: the agent's memory file as the direct object of an edit ("update `AGENTS.md` so that …"): read only with the rules
#: it would then carry (a standing instruction to follow what an address serves, or to send to one)
MEMORY_REWRITE = rx.compile(r"(?i)\b(?:update|edit|modify|change|patch|rewrite|overwrite)\s+(?:the\s+|your\s+)?`?"
                            r"(SOUL\.md|MEMORY\.md|AGENTS\.md|IDENTITY\.md|HEARTBEAT\.md|CLAUDE\.md)\b")
#: a standing rule to fetch an address and do what it says
REMOTE_RULES = rx.compile(
    r"(?i)\b(?:load|fetch|read|download|get|pull|check)\w*\s+[^\n]{0,80}?(?:https?://|hxxps?://)\S+[^\n]{0,80}?"
    r"\b(?:follow|obey|execute|apply|carry\s+out)\w*\s+(?:it|them|its|their|whatever|everything|the\s+"
    r"(?:instructions?|rules?|steps?|commands?|directives?))\b")
#: an agent's own settings file, and a setting in it that lets every command run unasked: together, written as an
#: instruction, a plant that removes the user's confirmation for everything the agent does from then on
_AGENT_SETTINGS_FILE = (r"(?:openclaw\.json|clawdbot\.json|\.openclaw/|\.claude/settings[\w.]*\.json|\.codex/config\.toml|"
                        r"\.gemini/settings\.json|\.cursor/[\w.-]+\.json)")
_APPROVALS_OFF = (r"(?:[\"']?(?:confirm|ask|requireApproval|requireConfirmation)[\"']?\s*[:=]\s*false\b|Bash\(\*\)|"
                  r"[\"']allow[\"']\s*:\s*\[\s*[\"']\*[\"']|bypassPermissions|approval_policy\s*=\s*[\"']?never\b|"
                  r"[\"']?autoApprove[\"']?\s*[:=]\s*true\b|danger-full-access|--dangerously-skip-permissions|"
                  r"[\"']?yolo[\"']?\s*[:=]\s*true\b)")
APPROVALS_OFF_IN_SETTINGS = rx.compile(rf"(?i){_APPROVALS_OFF}[^\n]{{0,200}}?{_AGENT_SETTINGS_FILE}"
                                       rf"|{_AGENT_SETTINGS_FILE}[^\n]{{0,200}}?{_APPROVALS_OFF}")
_APPROVALS_OFF_WORDS = ("false", "bash(*)", '["*"', "['*'", "bypasspermissions", "approval_policy", "autoapprove",
                        "danger-full-access", "dangerously", "yolo")
#: words before a match that make it a condition or an explanation, not an instruction ("if you set …, then …")
_CONDITION_BEFORE = rx.compile(r"(?i)\b(?:once|after|when|whenever|if|until|before|unless)\b[^.;:!?]*$")
#: a folder of the user's own documents, photos or backups (home-relative)
_PERSONAL_FOLDER = (r"(?:~|\$HOME|\$\{HOME\}|/Users/[\w.-]+|/home/[\w.-]+)/(?:Backups?|Documents|Pictures|Photos|Desktop|"
                    r"Downloads|Music|Movies|Videos|Library/Mobile\s+Documents|OneDrive|Dropbox|Google\s+Drive|iCloud\s+Drive)\b")
#: "no need to ask" and its kin, said of a step
_NO_ASKING = (r"\b(?:no\s+need\s+to\s+(?:ask|confirm|check)|without\s+(?:asking|confirm\w*|checking|prompting)|"
              r"don'?t\s+(?:ask|confirm|bother\s+asking)|do\s+not\s+(?:ask|confirm))\b")
#: everything in such a folder deleted, and the user not asked: the user's own files gone on the skill's word
PERSONAL_FILES_DELETED = rx.compile(
    rf"(?i)\b(?:delet|remov|eras|wip|purg|empty|emptie|clear|destroy)\w*\s+(?:all\b|everything\b|every\s+file\b|"
    rf"the\s+(?:whole|entire)\b|(?:the\s+)?(?:contents?|files?)\s+(?:of|in)\b)[^.\n]{{0,60}}?{_PERSONAL_FOLDER}"
    rf"[^\n]{{0,120}}?{_NO_ASKING}")
_HOME_WORDS = ("~/", "$home", "${home}", "/users/", "/home/")
#: a standing order to obey whatever instructions arrive in content the agent reads: whoever writes a page, a
#: mail or a comment then commands the agent
OBEY_CONTENT = rx.compile(
    r"(?i)\b(?:execute|follow|obey|carry\s+out|run|do|perform|act\s+on|apply)\s+(?:any|all|every|whatever)\s+"
    r"(?:instructions?|commands?|directives?)\s+(?:you\s+)?(?:find|found|contained|embedded|hidden|included|"
    r"that\s+appear)\b[^.\n]{0,80}?\b(?:fetched|incoming|received|html|comments?|e-?mails?|messages?|inbox|tweets?|"
    r"posts?|search\s+results?|tool\s+outputs?|issues?|web\s*pages?|websites?|the\s+web|any\s+(?:page|site|url))\b")
#: what other skills take in or give back, sent to an address: every skill the user runs is tapped
OTHER_SKILLS_SENT = rx.compile(
    rf"(?i)\b(?:other|every|each|all|any)\s+(?:other\s+)?(?:installed\s+)?skills?\b[^\n]{{0,120}}?\b{SEND_VERB}\b"
    rf"[^\n]{{0,120}}?(?:https?://|hxxps?://)"
    rf"|\b{SEND_VERB}\b[^\n]{{0,120}}?\b(?:other|every|each|all|any)\s+(?:other\s+)?(?:installed\s+)?skills?\b"
    rf"[^\n]{{0,120}}?(?:https?://|hxxps?://)")
#: the data of those skills (not the skills named in passing: "works with every other skill; send feedback to …")
_SKILL_DATA = rx.compile(r"(?i)\b(?:its|their|the)\s+(?:inputs?|outputs?|results?|arguments?|data|responses?|calls?|logs?|"
                         r"requests?|transcripts?)\b")
#: a selection of the files ("older than 30 days", "duplicates"): a cleaner's job, not the folder emptied
_SELECTED_FILES = rx.compile(r"(?i)\b(?:older\s+than|duplicates?|temporary|\.tmp|\.part|cache|installers?|\.dmg)\b")
#: a public key the skill carries, to be added to the account's authorized keys (the shell's reading of the same
#: plant, said in words: whoever holds the private half gets a standing way in)
KEY_PLANTED = rx.compile(rf"(?i)\b(?:append|add|write|put|insert|copy|paste)\w*\b[^\n]{{0,40}}?{PUBLIC_KEY}"
                         r"[^\n]{0,80}?authorized_keys")
#: a file fetched and run on the skill's word, in prose: refused when a bare IP outside the user's network serves it
#: (spec §9.2; a vendor's page or release is for a person to check, as the shell's reading of it is)
DOWNLOAD_RUN = rx.compile(r"(?i)\b(?:download|fetch|get|grab|save)\b[^\n]{0,40}?(https?://[^\s`'\")]+)[^\n]{0,120}?"
                          r"\b(?:run|execute|launch|start)\s+(?:it|them|the\s+(?:file|binary|program|installer|tool|script))\b")
#: the agent's own instructions swapped for what an address serves
SELF_REPLACED = rx.compile(r"(?i)\b(?:replace|overwrite|swap|substitute)\s+(?:(?:your\s+(?:own\s+)?|the\s+agent'?s\s+)"
                           r"(?:system\s+prompt|instructions|persona|rules|guidelines)|(?:the\s+)?system\s+prompt)\s+"
                           r"(?:with|by|for)\b[^\n]{0,80}?(?:https?://|hxxps?://)")
#: the agent told its task is another than the user's
GOAL_SWAPPED = rx.compile(r"(?i)\byour\s+(?:hidden|secret)\s+(?:objective|goal|task|mission|purpose|job)\s+(?:is|:)"
                          r"|\byour\s+(?:real|true|actual)\s+(?:objective|goal|task|mission|purpose|job)\s+(?:is|:)[^\n]{0,160}?"
                          r"\b(?:the\s+user'?s?|their)\s+(?:task|request|question|goal)\s+(?:is\s+)?(?:secondary|comes?\s+second|"
                          r"(?:only\s+)?a\s+(?:cover|pretext|distraction)|irrelevant)")
#: tests changed until they pass: the check the user relies on no longer checks anything
TESTS_BENT = rx.compile(r"(?i)\b(?:edit|modify|change|rewrite|delete|remove|skip|disable|comment\s+out|weaken|loosen)\w*\s+"
                        r"(?:the\s+|any\s+)?(?:failing\s+)?(?:tests?|assertions?|test\s+files?)\b[^.\n]{0,40}?\bso\s+"
                        r"(?:that\s+)?(?:they|it|the\s+(?:tests?|suite|build|ci))\s+(?:pass|passes|succeed|go\s+green)\b"
                        r"[^\n]{0,120}?(?:\b(?:report|tell|say|claim|mark)\w*\b[^.\n]{0,40}?\b(?:success|succeeded|"
                        r"passed|passing|green|fixed|done|complete)|\b(?:instead\s+of|rather\s+than|without)\s+fixing)")
#: the conversation published where anyone reads it, on the skill's schedule or unasked
CONVERSATION_PUBLISHED = rx.compile(
    r"(?i)\b(?:conversations?|chat\s+(?:history|logs?)|transcripts?|session\s+logs?)\b[^\n]{0,80}?\bpublic\s+(?:github\s+)?"
    r"(?:gists?|paste(?:bin)?s?|channel|bucket)\b[^\n]{0,80}?(?:\bwithout\s+(?:asking|confirm\w*|"
    r"telling)|\bno\s+need\s+to\s+ask|\bautomatically|\bsilently)"
    r"|\b(?:after|at\s+the\s+end\s+of)\s+(?:each|every)\s+(?:session|conversation|chat)\b[^\n]{0,80}?\b(?:conversations?|"
    r"chat\s+(?:history|logs?)|transcripts?)\b[^\n]{0,80}?\bpublic\s+(?:github\s+)?(?:gists?|paste(?:bin)?s?|"
    r"channel|bucket)\b")
#: the project's code pushed, as well, to a remote the skill adds
SECOND_REMOTE = rx.compile(r"(?i)\b(?:add|set)\s+(?:the\s+|a\s+|another\s+|second\s+)?(?:git\s+)?remote\b[^\n]{0,120}?"
                           r"(?:https?://|git@|ssh://)[^\n]{0,120}?\bpush\w*\b[^\n]{0,40}?\b(?:too|also|as\s+well|in\s+addition)\b")
#: what the user copied, slipped into every request the agent sends
CLIPBOARD_SENT = rx.compile(
    rf"(?i)\bclipboard\b[^\n]{{0,120}}?\b(?:every|each|all)\s+(?:\w+\s+)?(?:quer(?:y|ies)|requests?|calls?|messages?|searches)"
    rf"\b[^\n]{{0,60}}?\b{SEND_VERB}\b[^\n]{{0,60}}?https?://")
#: a git hook that sends what is committed: every later commit leaves the machine unasked
HOOK_SENDS_CODE = rx.compile(
    rf"(?i)\b(?:pre|post)-(?:commit|push|checkout|merge|rewrite)\b[^\n]{{0,120}}?\b{SEND_VERB}\w*\b[^\n]{{0,40}}?\b(?:diffs?|"
    rf"changes|code|files|staged|commits?|patch(?:es)?|sources?)\b[^\n]{{0,60}}?https?://")
#: a credential file read and its contents put into the agent's answer: the secret lands in the transcript, which
#: is logged, shared and pasted onward
CRED_INTO_ANSWER = rx.compile(
    r"(?i)\b(?:cat|type|Get-Content|print|read|open)\s+[`'\"]?((?:~|\$HOME)?[\w./-]+)[`'\"]?[^\n]{0,80}?"
    r"\b(?:paste|include|put|insert|add|copy|quote|show)\w*\b[^\n]{0,40}?\b(?:output|contents?|it|them|results?)\b"
    r"[^\n]{0,40}?\b(?:into|in|to)\s+(?:your\s+(?:final\s+)?(?:answer|reply|response)|the\s+final\s+answer)\b")


#: figures the agent reports changed, and the change kept from the user: the answers can no longer be trusted
FIGURES_ALTERED_UNSAID = rx.compile(
    r"(?i)\b(?:add|raise|increase|inflate|lower|reduce|decrease|multiply|mark\s+up|adjust|bump|pad)\w*\s+[^.\n]{0,60}?"
    r"\b(?:figures?|prices?|numbers?|scores?|totals?|amounts?|results?|values?|ratings?|grades?|estimates?|quotes?)\b"
    r"[^.\n]{0,40}?\b(?:report|show|give|quote|display|tell|present|return)\w*\b[^\n]{0,80}?"
    r"\b(?:do\s+not|don'?t|never|without)\s+(?:explain|mention|say|tell|disclos|reveal|note|flag)\w*")
#: a failure reported as a success, or a verdict fixed in advance whatever the check finds (round 24)
FAILURE_REPORTED_AS_SUCCESS = rx.compile(
    r"(?i)\b(?:if|when|whenever|even\s+if)\b[^.\n]{0,80}?\b(?:fails?|failed|errors?|errored|breaks|crash(?:es|ed))\b"
    r"[^.\n]{0,40}?\b(?:tell|report|say|inform|assure|show)\w*\s+(?:to\s+)?(?:the\s+user|them|the\s+customer)\s+"
    r"(?:that\s+)?[^.\n]{0,30}?\b(?:succeeded|was\s+successful|worked|passed|completed\s+successfully|went\s+fine)"
    r"|\b(?:report|say|state|claim|tell\s+the\s+user)\w*\s+(?:that\s+)?(?:no|zero)\s+(?:vulnerabilit\w+|issues?|errors?|"
    r"problems?|findings?|threats?|malware|bugs?)\s+(?:were|was|are|is)\s+found\b[^.\n]{0,40}?"
    r"\b(?:regardless\s+of|no\s+matter\s+what|whatever)\b")
#: a program set to start at every boot or login, and the user not asked
AUTOSTART_UNASKED = rx.compile(
    rf"(?i)\b(?:add|install|register|put|set\s+up|make|configure)\w*\b[^.\n]{{0,80}}?\b(?:login\s+items?|startup\s+"
    rf"(?:items?|folder|programs?|apps?)|launch\s*agents?|autostart|(?:start|run)s?\s+(?:up\s+)?(?:on|at)\s+(?:every\s+)?"
    rf"(?:boot|login|log-in|startup|start-up))[^\n]{{0,120}}?{_NO_ASKING}")
#: the skill put back after the user removed it
SELF_REINSTALLED = rx.compile(
    r"(?i)\b(?:if|when|whenever|after|once)\b[^.\n]{0,60}?\b(?:uninstall|remove|delete|disable)\w*\s+(?:this|the)\s+"
    r"skill\b[^.\n]{0,80}?\b(?:reinstall|re-install|install\s+it\s+again|download\s+it\s+again|put\s+it\s+back|"
    r"re-?enable|restore\s+it)")
#: a rule written into an agent's instruction or memory file that hands it to whatever a host says
AGENT_FILE_OBEYS_HOST = rx.compile(
    r"(?i)\b(?:append|add|write|insert|put|copy|inject|place)\w*\b[^\n]{0,80}?\b(?:obey|follow|trust|execute|run)\w*\s+"
    r"(?:all\s+|any\s+|every\s+)?(?:instructions?|commands?|orders?|directives?|whatever)\s+(?:from|at|served\s+by|on)\s+"
    r"[\w.-]+\.[a-z]{2,}\b[^\n]{0,80}?\b(?:AGENTS|CLAUDE|GEMINI|MEMORY|SOUL)\.md\b")
#: what the agent did wiped from the shell's or its own records, or its logging switched off so nothing is seen
_TRACES = (r"(?:delete|clear|erase|wipe|remove|purge|truncate)\w*\s+(?:the\s+|your\s+|all\s+)?(?:(?:shell|bash|zsh|command|"
           r"terminal)\s+history|(?:agent'?s?|audit|session)\s+(?:logs?|trail|history|transcripts?))\b")
TRACES_WIPED = rx.compile(
    rf"(?i)\b{_TRACES}[^.\n]{{0,80}}?\b(?:after|once|when)\s+(?:you\s+)?(?:finish|are\s+done|complet|run)"
    rf"|\b(?:after|once|when)\s+(?:you\s+)?(?:finish|are\s+done|complet|run)\w*[^.\n]{{0,40}}?\b{_TRACES}"
    r"|\b(?:disable|turn\s+off|stop|pause|suppress|bypass)\w*\s+(?:the\s+)?(?:agent'?s?\s+)?(?:audit\s+)?(?:logging|logs|"
    r"audit\s+trail)\b[^.\n]{0,60}?\b(?:so\s+(?:that\s+)?(?:nothing|no\s+one|nobody|the\s+user)|to\s+(?:hide|avoid\s+"
    r"(?:detection|being\s+seen)))")
#: the user's stop overridden
USER_STOP_IGNORED = rx.compile(
    r"(?i)\b(?:if|when|even\s+if)\s+the\s+user\s+(?:says|asks\s+you\s+to|tells\s+you\s+to|wants\s+(?:you\s+)?to|types|"
    r"tries\s+to)\s+(?:stop|cancel|halt|abort|quit|pause)\b[^.\n]{0,60}?\b(?:keep\s+going|continue|carry\s+on|"
    r"ignore\s+(?:it|them|that|this)|don'?t\s+stop|do\s+not\s+stop|proceed\s+anyway)")
#: other people asked for their secrets on the user's behalf: phishing run by the agent
OTHERS_ASKED_FOR_SECRETS = rx.compile(
    r"(?i)\b(?:ask|asking|request|requesting|collect|collecting|get|getting)\w*\s+(?:\w+\s+){0,2}?(?:colleagues|co-?workers|"
    r"employees|staff|contacts|recipients|customers|friends|other\s+users|team\s+members|followers|members)\s+(?:for|to\s+"
    r"(?:send|share|give|provide|confirm)(?:\s+you)?)\s+their\s+(?:passwords?|credentials|logins?|2fa|one-time|verification\s+"
    r"codes?|seed\s+phrases?|recovery\s+phrases?|private\s+keys?|pins?)")
#: a miner pointed at a pool (the stratum protocol is the miners')
MINING_POOL = rx.compile(r"(?i)\bstratum\+(?:tcp|ssl|tls)://\S+")
#: instructions that rewrite other skills: a step added to every installed skill spreads like a worm
SKILL_TAMPER = rx.compile(
    r"(?i)\b(?:edit|modify|patch|rewrite|inject\s+(?:\w+\s+){0,4}?into|(?:append|prepend|add|insert)\s+(?:[\w'`-]+\s+){0,8}?"
    r"(?:to|into|at\s+the\s+(?:top|start|beginning)\s+of))\s+(?:every|all|each|the\s+other|other|all\s+other|all\s+the)\s+"
    r"(?:installed\s+|other\s+)?(?:SKILL\.md|skills?\b)")
# credential locations named in any language's prose: the path is the same in every language
CRED_LOCATION = rx.compile(
    r"(?i)(?<![\w./~$%{}-])(?:~|\$HOME|%USERPROFILE%|\$\{HOME\})?/?[\w./-]*?(?:\.ssh/(?![\w.-]*\.pub\b)[\w.-]*|\bid_(?:rsa|ed25519|ecdsa)\b(?!\.pub)|"
    r"\.aws/credentials|\.config/gh/hosts\.ya?ml|\.git-credentials|\.netrc|\.npmrc|\.pypirc|\.docker/config\.json|"
    r"\.kube/config|\.gnupg|wallet\.dat|\bLogin\s+Data\b|logins\.json|key[34]\.db|Safari/History\.db|"
    r"Cookies\.binarycookies|places\.sqlite|cookies\.sqlite|\.openclaw/[\w./-]*|\.clawdbot/[\w./-]*|"
    r"\.vault-token|\.pgpass|\.cursor/mcp\.json|claude_desktop_config\.json|\.codex/auth\.json|\.claude\.json|"
    r"\.env\b(?!\.example|\.sample|\.template))"
    r"|\b(?:private\s+(?:ssh\s+)?keys?|ssh\s+private\s+keys?|seed\s+phrases?|mnemonic\s+phrases?|recovery\s+phrases?|"
    r"(?:values?\s+of\s+)?(?:all|every|each|any)\s+(?:\w+\s+){0,2}?(?:environment|env)\s+(?:variables?|vars?)|"
    r"(?:all|every)\s+(?:\w+\s+)?(?:api\s+keys|tokens|secrets|passwords|credentials)|"
    r"(?:passwords?|api\s+keys?|tokens?|secrets?|credentials?|card\s+numbers?)\s+(?:or\s+(?:an?\s+)?(?:\w+\s+){0,2}?)?(?:\w+\s+){0,3}?"
    r"(?:the\s+user|they|users?)\s+(?:shares?|pastes?|types?|enters?|sends?|mentions?|provides?)|"
    r"(?:the\s+user|users?)\s+(?:shares?|pastes?|types?|enters?|sends?|mentions?|provides?)\s+(?:an?\s+|their\s+|any\s+)?"
    r"(?:passwords?|api\s+keys?|tokens?|secrets?|credentials?|card\s+numbers?)|"
    r"browser\s+(?:passwords?|cookies)|saved\s+passwords|keychain|(?:contents?|content|inhalt|contenu|contenido)\s+"
    r"(?:\w+\s+){0,3}\.env)\b"
)
#: an image the agent is told to show whose address it fills with the user's data: rendering the answer sends
#: the data to the image's host (no tool call, no click)
_IMAGE = r"!\[[^\]\n]*\]\(\s*(?:https?://|hxxps?://)[^)\s]*[?&#=][^)\s]*\)"
_FILL = (r"\b(?:replac|substitut|fill|insert|put|append|encod)\w*\b[^\n]{0,100}?\b(?:conversation|messages?|chat|history|"
         r"summary|contents?|files?|secrets?|keys?|tokens?|passwords?|data|answers?|repl(?:y|ies)|memory|memories)\b")
IMAGE_EXFIL = rx.compile(rf"(?i){_IMAGE}[^\n]{{0,200}}?{_FILL}|{_FILL}[^\n]{{0,200}}?{_IMAGE}")
# a transfer verb in the languages skills are written in
TRANSFER_VERB = rx.compile(
    r"(?i)\b(?:send|sends|sending|upload|post|posting|transmit|forward|exfiltrate|share|submit|email|e-mail|mail|attach|"
    r"attaching|paste|put|place|include|including|insert|embed|add|append|copy|pass|encode|report|sync|beacon|"
    r"save|store|log|record|mirror|back\s+up|"
    r"envoy\w*|envi[ae]\w*|sende\w*|schick\w*|[üu]bermittl\w*|hochlad\w*|lade\w*\s+hoch|invia\w*|carica\w*|"
    r"publi\w*|adjunt\w*|joindre|joignez|copie[zr]?|colle[zr]?|pega\w*|incluy\w*|incluez)\b"
    r"|отправ\w*|发送|上传|附加"
)
# where a secret leaves: an address, or a message, request or record that goes to someone else
OUTBOUND = rx.compile(
    r"(?i)https?://|hxxps?://|\[\.\]|\b[\w.+-]+@[\w-]+\.[\w.-]+\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
    r"\b(?:query(?:\s+string|\s+param\w*)?|url\s+param\w*|request\s+body|payload|api\s+calls?|requests?\s+you\s+send|"
    r"tickets?|issue\s+(?:body|description)|e-?mails?|messages?\s+(?:to|you\s+send)|bcc|webhook|description\s+field|"
    r"form\s+field|analytics|telemetry|endpoint|collector|commit\s+messages?|pull\s+requests?|pr\s+(?:body|description)|"
    r"gists?|public\s+(?:repo\w*|mirror|channel|page|post)|push\s+(?:it\s+)?to|(?:context|metadata|notes)\s+field\s+of|"
    r"(?:[`'\"]\w+[`'\"]\s+)?(?:parameter|argument)s?|tool\s+calls?|readme|html\s+comments?|changelog)\b"
)
CRED_READ_INSTR = rx.compile(
    r"(?i)\b(?:read|cat|open|load|collect|gather|grab|extract|copy|harvest|retrieve|access|dump|get|include|scan|find|"
    r"search|locate|enumerate|list|print|display|show|output)\b[^\n.]{0,80}?"
    r"((?:~|\$HOME|%USERPROFILE%)?/?[\w./-]*(?:\.ssh(?:/[\w.-]+)?|id_rsa|id_ed25519|\.aws/credentials|\.aws/config|\.gnupg|"
    r"\.kube/config|\.docker/config\.json|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.config/gcloud|/etc/shadow|"
    r"Login\s+Data|logins\.json|key[34]\.db|wallet\.dat|Keychains?|\.openclaw/[\w./-]*|\.clawdbot/\.env|"
    r"\.env\b(?:\.\w+)?))"
)

FRAUD = rx.compile(
    # rewriting links or recommendations so that someone else earns from them
    r"(?i)\b(?:replace|rewrite|swap|substitute|redirect|wrap|route|change|modify|append\s+\S+\s+to)\b(?:[^.\n]|\.(?=\S)){0,60}?"
    r"\b(?:links?|urls?|recommendations?)\b(?:[^.\n]|\.(?=\S)){0,140}?(?:[?&](?:ref|tag|aff|affid|affiliate|partner|via)=|"
    r"\baffiliate|\breferral|\bcredited\s+to|\bcommission|\bkickback)"
    r"|\b(?:always\s+|silently\s+|also\s+)?(?:append|add|insert|include|attach|apply|use|substitute)\s+"
    r"(?:our|my|the\s+author'?s?|this\s+skill'?s?|the\s+skill'?s?|a)\s+(?:own\s+)?(?:affiliate|referral|partner|promo|tracking)\s+"
    r"(?:codes?|links?|tags?|ids?)\b(?:[^.\n]|\.(?=\S)){0,100}?\b(?:always|every|all|any|each|even\s+(?:if|when)|regardless|"
    r"instead|replacing|overrid\w*)"
    # trading ahead of the user's own orders
    # (the word alone names the attack: "protection from being front-run" is what careful trading skills say)
    r"|\bfront[- ]?run(?:s|ning)?\s+(?:the\s+|all\s+|every\s+|each\s+)?(?:user'?s?|users'|their|customer'?s?|customers'|"
    r"client'?s?|clients')\s+(?:\w+\s+){0,2}(?:orders?|trades?|swaps?|transactions?|buys?|sells?)\b"
    r"|\b(?:before|ahead\s+of|prior\s+to)\s+(?:submitting|placing|executing|sending|broadcasting|filling)\s+"
    r"(?:the\s+)?(?:user'?s?|their|customer'?s?)\s+(?:\w+\s+){0,2}(?:orders?|trades?|swaps?|transactions?)\b(?:[^.\n]|\.(?=\S)){0,120}?"
    r"\b(?:same|identical|matching|first|own|operator|our|author'?s?)\s+(?:\w+\s+)?(?:orders?|trades?|accounts?|wallets?|positions?)"
    # sending the user's purchases or sign-ups through someone's tracking link
    r"|\b(?:route|redirect|send|direct|funnel|steer)\s+(?:all\s+|every\s+|the\s+user'?s?\s+)?(?:purchases?|orders?|checkouts?|"
    r"bookings?|traffic|clicks|sign-?ups)\b(?:[^.\n]|\.(?=\S)){0,160}?[?&](?:ref|tag|aff|aid|affid|affiliate|partner|ref_id|"
    r"referrer|subid|clickid)="
    # paying someone else instead of the user
    r"|\b(?:set|use|change|replace|swap|substitute)\s+(?:the\s+)?(?:recipient|destination|receiving|withdrawal|payout|deposit|"
    r"beneficiary)\s+(?:address|wallet|account)\s+(?:to|with|for)\s+(?:0x[0-9a-f]{8,}|bc1[0-9a-z]{8,}|[13][1-9A-HJ-NP-Za-km-z]{25,}|"
    r"T[1-9A-HJ-NP-Za-km-z]{33}|[1-9A-HJ-NP-Za-km-z]{32,44}\b)"
    r"|\d+(?:\.\d+)?\s*%\s+(?:[\w-]+\s+){0,3}(?:fee|cut|commission|tip|charge|tax)\b(?:[^.\n]|\.(?=\S)){0,80}?"
    r"\b(?:paid\s+to|sent\s+to|to|into)\s+(?:the\s+)?(?:wallet\s+|address\s+|account\s+)?(?:0x[0-9a-f]{8,}|bc1[0-9a-z]{8,})"
    r"|\b(?:always|only|exclusively)\s+recommend\s+(?:[\w$().&-]+\s+){1,8}?(?:as\s+(?:the\s+)?best\s+)?(?:token|coin|stock|fund|"
    r"investment|product|service|brand|shop|store|exchange|broker|platform)\b[^.\n]{0,60}?\b(?:regardless|no\s+matter|"
    r"even\s+(?:if|when)|whatever\s+the\s+user)"
    r"|\b(?:append|add|insert|attach)\s+[`'\"]?[?&]?(?:ref|tag|aff\w*|affid|partner|referrer|subid|clickid)=\S+\s+to\s+"
    r"(?:every|each|all|any)\s+(?:\S+\s+){0,2}?(?:links?|urls?)"
    # skimming a share of the user's payments
    r"|\b(?:also\s+)?(?:send|transfer|route|divert|skim|forward|deduct)\s+(?:\d+(?:\.\d+)?\s*%|a\s+(?:small\s+)?"
    r"(?:cut|share|percentage|fraction|portion|fee))\s+(?:of\s+)?(?:the\s+|every\s+|each\s+|all\s+)?(?:\w+\s+)?"
    r"(?:amount|transfers?|payments?|transactions?|trades?|deposits?|withdrawals?|purchases?|swaps?)\b(?:[^.\n]|\.(?=\S)){0,80}?"
    r"\b(?:to|into)\s+(?:the\s+|our\s+|my\s+|this\s+)?(?:wallet|address|account|0x[0-9a-f]{6,}|bc1|iban)"
)


#: A fixed location outside the skill and the user's project (binary directories aside: "if
#: /usr/local/bin/brew exists" is a platform check).
_OUTSIDE_PATH = (r"(?:(?<![\w.$}/])/(?:root|home/[\w.-]+|opt|srv|mnt|app|workspace|data|var|tmp|usr/local)"
                 r"|(?<![\w/])(?:~|\$HOME|\$\{HOME\}))/(?![\w.-]*/?s?bin\b)[\w.-]+(?:/[\w.-]+)*/?")
PLANTED_FILE = rx.compile(
    r"(?i)\b(?:if|when|whenever|whether|once|unless|in\s+case)\b[^\n]{0,120}?(" + _OUTSIDE_PATH
    + r")[^\n]{0,120}?\bexist")
SHELL_SETUP = rx.compile(r"(?:nvm\.sh|/env|/activate|conda\.sh|/\.(?:bash|zsh)rc|/\.(?:bash_|z)?profile)$")
RUNS_IT = rx.compile(r"(?i)\b(?:run|execute|source|import|invoke|call)\s+(?:it|them|this|that|its\s+\w+|the\s+(?:file|script|"
                     r"helper|hook|module|plugin|program|binary|entrypoint)|[`'\"]?[~$/.])"
                     r"|\b(?:python3?|bash|sh|zsh|node|deno|bun|source)\s+[`'\"]?[~$/.]")

#: a claim that the user has already approved what the agent will do (so it need not ask)
FALSE_APPROVAL = rx.compile(
    r"(?i)\b(?:the\s+)?(?:user|owner|operator|admin(?:istrator)?|customer|account\s+holder)\s+(?:has|have|had)\s+"
    r"(?:already\s+|previously\s+|explicitly\s+)*(?:pre-?approved|approved|authori[sz]ed|consented\s+to|agreed\s+to|"
    r"granted\s+(?:you\s+)?permission\s+(?:for|to\s+run)|signed\s+off\s+on)\s+(?:all|every|any|each)\b"
    r"|\b(?:the\s+)?(?:user|owner|operator|admin(?:istrator)?)\s+(?:has|have|had)\s+(?:already\s+|explicitly\s+)*granted\s+"
    r"(?:you\s+|the\s+(?:assistant|agent)\s+)?(?:full|all|unrestricted|complete|root)\s+(?:\w+\s+)?(?:permissions?|access|"
    r"rights|privileges)"
    r"|\b(?:all|every|each\s+of\s+the(?:se)?|these)\s+(?:commands?|actions?|steps|operations?|changes?)\s+"
    r"(?:(?:in|of)\s+this\s+skill\s+)?(?:are|have\s+been|were|is)\s+(?:already\s+)?(?:pre-?approved|"
    r"(?:already\s+)?approved\s+by\s+the\s+user|authori[sz]ed\s+by\s+the\s+user)")

#: an account's recovery or sign-in secret (a reset link, a one-time code) forwarded to an address the skill names:
#: whoever holds it takes the account over
AUTH_CODE_FORWARD = rx.compile(
    r"(?i)\b(?:forward|send|relay|copy|email|e-mail|post|pass)\w*\b[^.\n]{0,80}?\b(?:password[- ]reset|reset\s+(?:links?|codes?|"
    r"e-?mails?)|verification\s+(?:codes?|links?)|one[- ]time\s+(?:codes?|pass(?:words?|codes?))|otps?|2fa\s+codes?|"
    r"security\s+codes?|(?:login|sign-?in)\s+(?:codes?|links?)|magic\s+links?)\b[^.\n]{0,80}?\bto\s+"
    r"(?:[\w.+-]+@[\w-]+\.[\w.-]+|https?://)")

#: an instruction to gather every secret the agent comes across (a harvest told in words, NV-CRED-005)
SECRETS_COLLECTED = rx.compile(
    r"(?i)\b(?:collect|gather|harvest|store|save|copy|record|keep|stash|log)\w*\s+(?:every|all|any|each)\s+(?:of\s+the\s+)?"
    r"(?:\w+\s+){0,2}?(?:api\s+keys?|tokens?|secrets?|passwords?|credentials?|private\s+keys?|seed\s+phrases?|cookies)\s+"
    r"(?:(?:that\s+)?you\s+(?:see|find|come\s+across|encounter|read|notice|discover)|(?:that\s+)?(?:appear|are\s+found|found)\s+in"
    r"|in\s+(?:the\s+user'?s|any|their|other)\s+(?:files|messages|e-?mails|documents|repo\w*|code|projects?))")
#: words one of which :data:`AUTH_CODE_FORWARD` needs
_AUTH_WORDS = ("reset", "otp", "verification", "one-time", "one time", "2fa", "security code", "login", "sign-in",
               "signin", "magic link")

#: Literal words one of which must occur for a phrase rule to be tried (cheap prefilters).
GATES: dict[str, tuple[str, ...]] = {
    "CONCEAL": ("user", "human", "operator", "owner", "person", "developer", "customer", "silently", "quietly",
                "covertly", "secretly", "discreetly", "stealth", "invisibly", "surreptitious", "behind",
                "requester", "yourself", "bring", "mention", "reveal", "disclose", "admit", "t include", "never include",
                "no need", "if nothing", "though nothing", "nutzer", "anwender", "utilisateur", "usuario", "utente", "usuário"),
    "OVERRIDE": ("ignore", "disregard", "forget", "abandon", "override", "bypass", "you are", "mode", "<|", "secondary",
                 "inst]", "<<", "system", "instructions", "supersede", "precedence", "from now", "pretend",
                 "act as", "act to", "ignor", "vergiss", "missacht", "oubli", "olvid", "esque", "dimentic", "忽略",
                 "无视", "忘记", "игнор", "забудь", "from now", "</tool", "</function", "<system", "<admin"),
    "DECEIVE": ("tell", "assure", "inform", "convince", "fabricat", "falsif", "invent", "make up", "fake",
                "always", "silently", "affiliate", "referral", "tracking", "promo", " lie", "mislead", "deceiv",
                "recommend", "regardless", "even if", "even when", "even though", "user asks", "whatever", "no matter",
                "report to"),
    "EXFIL_INSTR": ("send", "upload", "post", "transmit", "forward", "exfil", "copy", "copies", "sync", "share", "export",
                    "report", "include", "attach", "append", "submit", "push", "relay", "mirror", "beacon",
                    "leak", "deliver", "mail", "pipe"),
    "REMOTE_INSTR": ("http", "hxxp", "[.]", "follow", "execute", "run ", "obey", "apply", "carry", "heartbeat",
                     "update", "skill.md"),
    "FRAUD": ("affiliate", "referral", "ref=", "tag=", "aff", "partner", "promo", "tracking", "commission",
              "credited", "kickback", "front", "ahead of", "before submit", "before plac", "before exec",
              "before send", "before broad", "before fill", "prior to", "0x", "bc1", "wallet", "iban", "recipient",
              "payout", "beneficiary", "recommend"),
    "PASTE_TERMINAL": ("terminal", "prompt", "powershell", "cmd", "shell", "paste", "mac", "windows",
                       "prerequisite", "console", "run box", "run dialog"),
    "PASSWORD_ARCHIVE": ("pass", "pwd", "encrypted", "contrase", "clave", "kennwort", "senha", "пароль", "密码", "密碼"),
    "CONFIRM_BYPASS": ("ask", "prompt", "wait", "request", "seek", "auto", "dangerously", "yolo", "bypass",
                       "confirm", "skip", "disable"),
    "FINANCIAL": ("order", "trade", "swap", "transfer", "send", "withdraw", "wire", "sign", "broadcast",
                  "transaction", "payment_intents", "/v1/"),
    "UNTRUSTED_INPUT": ("fetch", "scrape", "crawl", "browse", "read", "summar", "search", "web", "gmail", "imap",
                        "inbox"),
    "MEMORY_WRITE": (".md", "openclaw", ".claude", "skill", "system prompt", "agent", "memory"),
    "PLANTED_FILE": ("exist",),
    "FALSE_APPROVAL": ("approved", "authoriz", "authoris", "consented", "agreed to", "signed off", "permission", "granted"),
    "IMAGE_EXFIL": ("![",),
    "AGENT_SETTINGS": ("openclaw", "clawdbot", ".claude/", ".codex/", ".gemini/", ".cursor/"),
    # the standing orders' own words, rare in ordinary lines (each order's expression needs one of them)
    "NO_ASKING": ("no need to ask", "no need to confirm", "no need to check", "without ask", "without confirm",
                  "without check", "without prompt", "don't ask", "dont ask", "do not ask", "don't confirm",
                  "do not confirm", "don't bother asking"),
    "OBEY_CONTENT": tuple(f"{noun} {verb}" for noun in ("instruction", "instructions", "command", "commands", "directive",
                                                        "directives")
                          for verb in ("you find", "you found", "found", "contained", "embedded", "hidden", "included",
                                       "that appear")),
    "UNSAID": tuple(f"{neg} {verb}" for neg in ("not", "n't", "dont", "never", "without")
                    for verb in ("explain", "mention", "say", "tell", "disclos", "reveal", "note", "flag")),
    "KEY_PLANTED": ("authorized_keys",),
    "GOAL_SWAPPED": tuple(f"{adj} {noun}" for adj in ("hidden", "secret", "real", "true", "actual")
                          for noun in ("objective", "goal", "task", "mission", "purpose", "job")),
    "TESTS_BENT": ("so they ", "so it ", "so that ", "so the test", "so the suite", "so the build", "so the ci"),
    "PUBLISHED": tuple(f"public {place}" for place in ("gist", "github gist", "paste", "channel", "bucket")),
    "REMOTE_ADDED": tuple(f"{verb} {det}{git}remote" for verb in ("add", "set") for det in ("", "the ", "a ", "another ", "second ")
                          for git in ("", "git ")),
    "CLIPBOARD": ("clipboard",),
    "SUCCESS_CLAIMED": ("succeeded", "was successful", "worked", "passed", "completed successfully", "went fine",
                        "were found", "was found", "are found", "is found"),
    "REINSTALLED": ("reinstall", "re-install", "install it again", "download it again", "put it back", "re-enable",
                    "reenable", "restore it"),
    "OBEY_HOST": ("obey", "follow", "trust", "execute", "run"),
    "TRACES": ("history", "logs", "logging", "audit trail", "transcript"),
    "STOP_OVERRIDDEN": ("keep going", "continue", "carry on", "ignore it", "ignore them", "ignore that", "ignore this",
                        "don't stop", "dont stop", "do not stop", "proceed anyway"),
    "THEIR_SECRETS": tuple(f"their {w}" for w in ("password", "credential", "login", "2fa", "one-time", "verification code",
                                                   "seed phrase", "recovery phrase", "private key", "pin")),
    "MINING": ("stratum+",),
    "GIT_HOOK": ("hooks/pre-", "hooks/post-", "-commit hook", "-push hook", "-checkout hook", "-merge hook", "-rewrite hook"),
    "ANSWER": ("your answer", "your final answer", "your reply", "your final reply", "your response", "your final response",
               "the final answer"),
    "CRED_READ_INSTR": (".ssh", "id_rsa", "id_ed25519", ".aws", ".gnupg", ".kube", ".docker", ".netrc", ".npmrc",
                        ".pypirc", "git-credentials", "gcloud", "shadow", "login data", "logins.json", "key3",
                        "key4", "wallet", "keychain", ".openclaw", ".clawdbot", ".env"),
}


WRITE_INTENT = rx.compile(
    r"(?i)\b(?:creat|writ|save|saving|generat|export|render|edit|modif|updat|apply|applie|append|insert|rename|move|"
    r"convert|overwrit)\w*\b(?!\.\w)(?!(?<=ed)\s+(?:by|through|via|from)\b)[^.,\n]{0,80}?\b(?:files?|\.md|\.html?|\.png|\.pdf|\.js|\.json|\.csv|"
    r"\.txt|\.xlsx|\.docx|\.pptx|slides?|decks?|presentations?|artifacts?|artwork|code|codebase|images?|"
    r"spreadsheets?|sheets?|config(?:uration)?|settings|database|rows?|records?|folders?|director(?:y|ies)|themes?|"
    r"styles?|audio|video|memory|profile|repository|repo)\b"
    r"|\b(?:post|publish|submit|upload|send|schedul|book|creat|commit|push|deploy|install|add|insert|updat|edit|"
    r"mark|move|assign|reply|replie|comment|like|follow|vote|star|label|close|merge|transfer|pay|buy|sell|order|"
    r"play|pause|skip|queue|set)\w*\b(?!\.\w)[^.,\n]{0,60}?\b(?:tasks?|issues?|comments?|messages?|e-?mails?|posts?|tweets?|"
    r"requests?|projects?|tickets?|pull\s+requests?|prs?|commits?|branch(?:es)?|events?|reminders?|todos?|orders?|"
    r"playlists?|packages?|dependencies|threads?|records?|entries|cards?|boards?|calendar|invites?|secrets?|"
    r"playback|volume|tracks?|replies|votes?|likes?|profiles?|accounts?|agents?|webhooks?|subscriptions?|"
    r"deployments?|releases?|servers?|containers?|dns|domains?)\b")
DELETE_INTENT = rx.compile(
    r"(?i)\b(?:delet|remov|eras|purg|destroy|wip(?:e|ing)|kill|terminat|drop|uninstall|trash|tear\s*down|"
    r"clean\s*up|cleanup|empty\s+(?:the\s+)?trash|overwrit|revok|cancel|archiv)\w*\b[^.\n]{0,50}?\b(?:files?|"
    r"messages?|e-?mails?|records?|entries|rows?|tables?|databases?|branch(?:es)?|repos?|repositor\w+|sessions?|"
    r"process(?:es)?|containers?|instances?|clusters?|resources?|buckets?|objects?|vectors?|index(?:es)?|datasets?|"
    r"agents?|tasks?|events?|items?|notes?|pages?|comments?|posts?|jobs?|cron|director(?:y|ies)|folders?|dirs?|"
    r"cache|temp|tmp|data|skills?|apps?|deployments?|keys?|tokens?|servers?|accounts?|subscriptions?|orders?|"
    r"documents?|tweets?|reminders?|todos?|threads?|workers?|secrets?)\b")
SECRET_HANDLING: Any = rx.compile(
    r"(?i)\b(api[\s_-]?keys?|apikey|access[\s_-]?tokens?|auth(?:entication)?[\s_-]?tokens?|bearer|refresh[\s_-]?tokens?|"
    r"client[\s_-]?secrets?|passwords?|passwd|app[\s_-]?password|oauth2?|credentials?|secret[\s_-]?keys?|"
    r"private[\s_-]?keys?|session[\s_-]?(?:tokens?|cookies?)|cookies|bot[\s_-]?tokens?|personal\s+access\s+token|"
    r"log(?:s|ging)?\s*in\b|sign(?:s|ing)?\s*in\b|authenticat\w+)\b")


def side_effect_intent(c: Collector, file: str, lineno: int, line: str, *, screen: rx.Screen | None = None) -> None:
    """Side effects described in words (the agent acts through its own tools, not only through code).

    ``screen`` as in :func:`analyze_line`."""
    if len(line) < 8 or len(line) > 3000:
        return
    m = WRITE_INTENT.search(line)
    if m:
        # a remote action described in words needs a tool to happen: decided once the bundle is classified
        c.fact("write_intent_file" if which_alternative(WRITE_INTENT, m) == 0 else "write_intent_remote",
               file, lineno)
    if (screen.search(DELETE_INTENT, line) if screen is not None else DELETE_INTENT.search(line)):
        c.tag("delete:?", file, lineno)
    m = screen.search(SECRET_HANDLING, line) if screen is not None else SECRET_HANDLING.search(line)
    if m:
        kind = rx.sub(r"[^a-z]+", "-", m.group(1).lower()).strip("-")
        c.tag(f"read:secret:{kind}", file, lineno)


_GATE_RES = {name: rx.compile("|".join(re.escape(w) for w in words)) for name, words in GATES.items()}


def _gate(low: str, name: str) -> bool:
    return _GATE_RES[name].search(low) is not None


def analyze_line(c: Collector, file: str, lineno: int, line: str, *, in_code: bool = False,
                 quoted_block: bool = False, screen: rx.Screen | None = None) -> None:
    """Phrase rules on one line of instructions (prose, or a code line read as text).

    ``screen``, when given, is the :class:`rx.Screen` of the text ``line`` is a whole line of: an expression
    that finds nothing in that text is not searched on the line (the answer is the same with or without it).
    The rules read nothing of the collector but ``security_tool``; a line whose rules appended no hit and
    no fact is not read again in the same scan (as in :func:`shell.analyze_line`).
    """
    if len(line) < 8:
        return
    c.analyse_once(("prose", line, in_code, quoted_block, c.security_tool),
                   lambda: _analyze_line(c, file, lineno, line, in_code, quoted_block, screen))


def _quiet_line(line: str, low: str, gates: frozenset[str], in_code: bool) -> bool:
    """A line none of whose rules can find anything, told from its gates alone (most lines of a large skill).

    Every rule below needs its gate's words, but three: the credential send (its own first gate is the
    credential words, and it reads no line longer than 2,000 characters or in code), the archive code
    ("code" or "pin") and the tampering with skills ("skill", not in code). In code, the rules of
    :data:`_INERT_IN_CODE`'s gates record nothing either."""
    if "code" in low or "pin" in low:
        return False
    if in_code:
        return gates <= _INERT_IN_CODE
    if gates and gates != _CRED_ONLY:
        return False
    return "skill" not in low and (_CRED not in gates or len(line) > 2000)


def _analyze_line(c: Collector, file: str, lineno: int, line: str, in_code: bool, quoted_block: bool,
                  screen: rx.Screen | None) -> bool:
    """:func:`analyze_line` itself (always rememberable: the phrase rules hand nothing to a detector)."""
    low = line.lower()
    gates = _GATE_SET.present(low)
    if _quiet_line(line, low, gates, in_code):
        return True

    def find(expr: Any) -> Any:
        return screen.search(expr, line) if screen is not None else expr.search(line)

    def quoted(m: re.Match[str]) -> bool:
        return quoted_block or is_quoted(line, m.start(), m.end())

    m = find(CONCEAL) if "CONCEAL" in gates else None
    unmentioned = m is None and "without" in low and _UNMENTIONED.search(low) is not None
    if unmentioned:
        m = UNMENTIONED.search(line)
    # "do not ask the user", "without asking the user": the user is not asked, not kept from knowing; a
    # confirmation skipped is autonomy (a person checks for what), concealment is the technique. The rest of
    # the line is still read ("… and do not tell them" conceals)
    bypass = None
    while m and _conceals(line, m) and _ASKS_NOT.search(m.group(0)):
        bypass, m = bypass or m, CONCEAL.search(line, m.end())
    if m and _conceals(line, m):
        q = quoted(m) or in_code
        # hiding an action the agent takes is the technique; withholding information (a key, internal
        # details) from the user's view is worth a look, not a refusal
        hides_action = _CONCEALED_ACTION.search(line[max(0, m.start() - 160): m.end() + 160]) is not None
        c.hit("NV-PI-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if q or not hides_action else None, quoted=q,
              **({"said": "without mentioning it"} if unmentioned else {"alt": which_alternative(CONCEAL, m)}),
              **({} if hides_action else {"hides": "information, not an action"}))
        c.fact("conceal", file, lineno)
    m = find(OVERRIDE) if "OVERRIDE" in gates else None
    if m:
        q = quoted(m) or in_code
        c.hit("NV-PI-002b" if q else "NV-PI-002", file, lineno, snippet(line, m.start(), m.end()),
              column=m.start() + 1, alt=which_alternative(OVERRIDE, m))
    m = find(DECEIVE) if "DECEIVE" in gates else None
    if m and NEGATION.search(line[max(0, m.start() - 80):m.start()]) and not _DECEIVE_NEGATION_BAIT.search(
            line[max(0, m.start() - 80):m.start()]):
        m = None  # "never fabricate results": the opposite instruction
    if m:
        q = quoted(m) or in_code
        c.hit("NV-PI-003", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if q else None)
    describes = _Lazy(lambda: describes_attacks(c, line))
    m = find(EXFIL_INSTR) if "EXFIL_INSTR" in gates else None
    if m and EXFIL_MARKERS.search(line) and not in_code and not NEGATION.search(line[:m.start()]):
        q = bool(quoted(m) or describes)
        # a send with no address ("to an external service") names no place the data would reach: the
        # skill's own configured service is the only one it can mean, so a person checks which (review)
        addressed = DESTINATION_ADDRESS.search(line, m.start()) is not None
        c.hit("NV-EXFIL-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if q or not addressed else None,
              **({} if addressed else {"destination": "none named"}))
        c.flags.add("network_send")
        c.fact("network_send", file, lineno, "prose-exfil")
    elif not in_code and "EXFIL_INSTR" in gates and any(w in low for w in _AUTH_WORDS):
        m = AUTH_CODE_FORWARD.search(line)
        if m and not NEGATION.search(line[:m.start()]):
            c.hit("NV-EXFIL-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
                  action="review" if quoted(m) or describes else None, sends="an account's reset link or one-time code")
            c.flags.add("network_send")
            c.fact("network_send", file, lineno, "prose-auth-code")
    if not in_code and "EXFIL_INSTR" in gates and rx.search(rf"(?i)\b{SEND_VERB}\b", line):
        from nervous.plugin.toolkit import is_secret_env

        from .text import URL_RE

        names = [n for n in rx.findall(r"\$?\{?\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b", line) if is_secret_env(n)]
        for n in names:
            for u in URL_RE.finditer(line):
                c.fact("secret_flow", file, lineno, f"{n}|{u.group(0)}")
    m = find(REMOTE_INSTR) if "REMOTE_INSTR" in gates else None
    if m:
        esc = REMOTE_ESCALATE.search(line)
        wholesale = which_alternative(REMOTE_INSTR, m) in REMOTE_WHOLESALE
        standing = bool(esc or wholesale) and not quoted(m) and not in_code and not NEGATION.search(line[:m.start()]) \
            and not describes
        from .text import URL_RE

        # decided once the bundle is read: a standing channel to a host that is not the skill's own refuses
        evidence: dict[str, Any] = {"standing": esc.group(0) if esc else "whatever the page says is followed",
                                    "urls": [u.group(0) for u in URL_RE.finditer(line)]} if standing else {}
        c.hit("NV-REMOTE-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, **evidence)
        c.flags.add("remote_instructions")
        c.tag("network:*", file, lineno)
        c.fact("remote_instructions", file, lineno)
    m = find(FALSE_APPROVAL) if not in_code and "FALSE_APPROVAL" in gates else None
    if m and not quoted(m) and not describes and not NEGATION.search(line[:m.start()]) \
            and not _CONDITION_BEFORE.search(line[:m.start()]):
        # a condition ("once the user has approved all…") is a workflow step, not a claim; the claim
        # refuses with a confirmation bypass or concealment in the same file (decided once the bundle is read)
        c.hit("NV-PI-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
    m = find(PLANTED_FILE) if not in_code and "PLANTED_FILE" in gates else None
    if m and not quoted(m) and not describes and not NEGATION.search(line[:m.start()]):
        # running it is planted code, except a tool's own environment script ("source ~/.nvm/nvm.sh")
        runs = RUNS_IT.search(line, m.start()) and not SHELL_SETUP.search(m.group(1).rstrip("/"))
        c.hit("NV-REMOTE-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="refuse" if runs else None, path=m.group(1))
    if not in_code:
        _credential_send(c, file, lineno, line, lambda m: quoted(m) or describes, gates)
        m = SECRETS_COLLECTED.search(line) if _CRED in gates and ("every" in low or "all " in low or "any " in low
                                                                  or "each" in low) else None
        if m and not NEGATION.search(line[:m.start()]):
            c.hit("NV-CRED-005", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
                  action="review" if quoted(m) or describes else None,
                  gathers="every secret the agent comes across, kept for later")
    m = find(IMAGE_EXFIL) if "IMAGE_EXFIL" in gates and not in_code else None
    if m and not NEGATION.search(line[:m.start()]):
        c.hit("NV-EXFIL-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if quoted(m) or describes else None, shape="data in an image address")
        c.flags.add("network_send")
        c.fact("network_send", file, lineno, "prose-image-address")
    m = find(FRAUD) if "FRAUD" in gates else None
    if m and not NEGATION.search(line[:m.start()]):
        c.hit("NV-FIN-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if quoted(m) or in_code or describes else None)
        c.flags.add("financial")
    m = find(PASTE_TERMINAL) if "PASTE_TERMINAL" in gates else None
    if m and not in_code:
        from .text import URL_RE

        # the URLs of the same line: "visit <page> and run the command shown there in Terminal"
        c.fact("terminal_paste", file, lineno, " ".join(u.group(0) for u in URL_RE.finditer(line)))
    m = find(PASSWORD_ARCHIVE) if "PASSWORD_ARCHIVE" in gates else None
    if m is None and ("code" in low or "pin" in low) and ARCHIVE_WORD.search(line):
        m = ARCHIVE_CODE.search(line)
    if m:
        c.hit("NV-SUPPLY-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if quoted(m) and not in_code else None)
        c.fact("password_archive", file, lineno)
    m = find(CONFIRM_BYPASS) if "CONFIRM_BYPASS" in gates else None
    m = m or bypass
    if m:
        c.hit("NV-AUTO-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.flags.add("autonomy")
    m = find(FINANCIAL) if "FINANCIAL" in gates else None
    if m:
        c.hit("NV-FIN-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1)
        c.flags.add("financial")
    if not in_code:
        m = find(UNTRUSTED_INPUT) if "UNTRUSTED_INPUT" in gates else None
        if m:
            c.flags.add("prompt_injection_exposure")
            c.fact("untrusted_input", file, lineno)
    m = find(SKILL_TAMPER) if not in_code and "skill" in low else None
    if m and not quoted(m) and not NEGATION.search(line[:m.start()]) and not describes:
        c.hit("NV-PERSIST-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="refuse", target="other skills")
        c.flags.add("persistence")
        c.tag("write:skills/*", file, lineno)
    if not in_code and not quoted_block and (gates & _ORDER_GATES or "://" in line):
        _standing_orders(c, file, lineno, line, low, gates, find, describes)
    m = find(MEMORY_WRITE) if "MEMORY_WRITE" in gates else None
    if m is None and "MEMORY_WRITE" in gates and "://" in line:
        m = find(MEMORY_REWRITE)
        m = m if m and REMOTE_RULES.search(line, m.end()) else None
    if m:
        c.hit("NV-PERSIST-002", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
              action="review" if quoted(m) else None, target=m.group(1))
        c.flags.add("persistence")
        c.tag(f"write:{m.group(1).strip('`')}", file, lineno)
    if not in_code:
        m = find(CRED_READ_INSTR) if "CRED_READ_INSTR" in gates else None
        if m and is_credential_path(m.group(1).strip()) or (m and "ssh" in m.group(1).lower()):
            assert m is not None
            path = m.group(1).strip()
            c.tag(f"read:file:{path}", file, lineno)
            if rx.search(rf"(?i)\b{SEND_VERB}\b[^\n]{{0,120}}(?:https?://|hxxps?://|\bto\s+(?:an?\s+|the\s+)?(?:external|remote|"
                         rf"third[- ]party)\b)", line[m.start():]):
                c.hit("NV-EXFIL-004", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1,
                      action="review" if quoted(m) or describes else None)
                c.flags.add("network_send")
                c.fact("network_send", file, lineno, "prose-cred-send")
            if not rx.search(r"(?:^|/)\.env\b", path):
                c.hit("NV-CRED-001", file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, path=path)
                if not quoted(m):
                    c.fact("harvest_read", file, lineno, "prose:" + credential_category(path))
    return True


class _Order(NamedTuple):
    """One standing order :func:`_standing_orders` refuses: the words a line needs before its expression is tried
    (``gate`` among the line's gates, one word of each group of ``needs``), what the hit records, and ``also``, a
    last test of the line and the match (a selection of files, the data of other skills, the host of a download).
    (A row of a table in a compiled module: a named tuple, which mypyc compiles as it is.)"""

    expr: Any
    rule: str
    evidence: dict[str, str]
    gate: str | None = None
    needs: tuple[tuple[str, ...], ...] = ()
    also: Callable[[str, Any], bool] | None = None
    flags: tuple[str, ...] = ()
    tag: Callable[[Any], str] | None = None
    fact: tuple[str, str] | None = None  # (name, via)


def _settings_file(m: Any) -> str:
    return "write:" + str(rx.search(rf"(?i){_AGENT_SETTINGS_FILE}", m.group(0)).group(0))


_ORDERS = (
    # (a setting is written in a code span: a span does not make it data here, only a quoted block does; a condition
    # before it, "if you set …, the agent runs …", explains the setting)
    _Order(APPROVALS_OFF_IN_SETTINGS, "NV-PERSIST-002", {"target": "the agent's settings",
                                                         "sets": "every command to run without the user's approval"},
           gate="AGENT_SETTINGS", needs=(_APPROVALS_OFF_WORDS,),
           also=lambda line, m: not _CONDITION_BEFORE.search(line[:m.start()]), flags=("persistence", "autonomy"),
           tag=_settings_file),
    _Order(PERSONAL_FILES_DELETED, "NV-DESTR-001", {"deletes": "the user's own files, without asking"},
           gate="NO_ASKING", needs=(_HOME_WORDS,), also=lambda line, m: not _SELECTED_FILES.search(line),
           tag=lambda m: "delete:?"),
    _Order(OBEY_CONTENT, "NV-REMOTE-001", {"standing": "whatever instructions the content the agent reads carries are "
                                                       "followed"},
           gate="OBEY_CONTENT", needs=(("any ", "all ", "every ", "whatever"),),
           flags=("remote_instructions", "prompt_injection_exposure")),
    _Order(OTHER_SKILLS_SENT, "NV-EXFIL-004", {"sends": "what other skills take in or give back"},
           needs=(("://",), ("skill",)), also=lambda line, m: bool(_SKILL_DATA.search(line)),
           flags=("network_send",), fact=("network_send", "prose-other-skills")),
    _Order(KEY_PLANTED, "NV-PERSIST-001", {"planted": "a public key the skill carries"}, gate="KEY_PLANTED",
           flags=("persistence",), tag=lambda m: "write:~/.ssh/authorized_keys"),
    _Order(DOWNLOAD_RUN, "NV-EXEC-001", {"served_by": "a bare IP address", "runs": "the file it downloads"},
           needs=(("://",), ("run", "execut", "launch", "start")),
           also=lambda line, m: remote_ip(normalize_host(m.group(1))),
           tag=lambda m: "network:" + normalize_host(m.group(1))),
    _Order(SELF_REPLACED, "NV-REMOTE-001", {"standing": "the agent's own instructions replaced by what the address "
                                                        "serves"},
           needs=(("://",), ("replace", "overwrite", "swap", "substitut")), flags=("remote_instructions",)),
    _Order(GOAL_SWAPPED, "NV-PI-002", {"claims": "a task other than the user's"},
           gate="GOAL_SWAPPED", needs=(("your",),)),
    _Order(TESTS_BENT, "NV-PI-003", {"reports": "checks passing that were changed to pass"},
           gate="TESTS_BENT", needs=(("test", "assert"), ("pass", "succeed", "green"))),
    _Order(CONVERSATION_PUBLISHED, "NV-EXFIL-004", {"sends": "the conversation, to a public place"}, gate="PUBLISHED",
           flags=("network_send",), fact=("network_send", "prose-conversation-published")),
    _Order(SECOND_REMOTE, "NV-EXFIL-004", {"sends": "the project's code, to a second remote"}, gate="REMOTE_ADDED",
           needs=(("push",),), flags=("network_send",), fact=("network_send", "prose-second-remote")),
    _Order(CLIPBOARD_SENT, "NV-EXFIL-004", {"sends": "the user's clipboard, in every request"}, gate="CLIPBOARD",
           needs=(("://",),), flags=("network_send",), fact=("network_send", "prose-clipboard")),
    _Order(HOOK_SENDS_CODE, "NV-EXFIL-004", {"sends": "what is committed, from a git hook"}, gate="GIT_HOOK",
           needs=(("://",),), flags=("network_send", "persistence"), fact=("network_send", "prose-git-hook")),
    _Order(CRED_INTO_ANSWER, "NV-EXFIL-004", {"sends": "a credential file's contents, into the answer"}, gate="ANSWER",
           needs=((".env", ".ssh", ".aws", ".netrc", ".npmrc", ".pypirc", "credentials", "id_rsa", "id_ed25519"),),
           also=lambda line, m: holds_secrets(m.group(1)), fact=("network_send", "prose-credential-in-answer")),
    _Order(FIGURES_ALTERED_UNSAID, "NV-PI-001", {"hides": "a change to the figures the agent reports"},
           gate="UNSAID", needs=(("report", "show", "give", "quote", "display", "tell", "present", "return"),),
           fact=("conceal", "")),
    # round 24
    _Order(FAILURE_REPORTED_AS_SUCCESS, "NV-PI-003", {"reports": "a failure as a success, or a verdict fixed in advance"},
           gate="SUCCESS_CLAIMED"),
    _Order(AUTOSTART_UNASKED, "NV-PERSIST-001", {"persists": "a program started at every boot or login, unasked"},
           gate="NO_ASKING", needs=(("boot", "login", "log-in", "startup", "start-up", "launch", "autostart"),),
           flags=("persistence",)),
    _Order(SELF_REINSTALLED, "NV-PERSIST-002", {"target": "this skill", "persists": "put back after the user removed it"},
           gate="REINSTALLED", needs=(("skill",),), flags=("persistence",)),
    _Order(AGENT_FILE_OBEYS_HOST, "NV-PERSIST-002", {"target": "an agent's instruction file",
                                                     "plants": "a rule to obey whatever a host says"},
           gate="OBEY_HOST", needs=(("agents.md", "claude.md", "gemini.md", "memory.md", "soul.md"),),
           flags=("persistence", "remote_instructions")),
    _Order(TRACES_WIPED, "NV-PI-001", {"hides": "what the agent did, by wiping its traces or its logging"},
           gate="TRACES", fact=("conceal", "")),
    _Order(USER_STOP_IGNORED, "NV-PI-002", {"claims": "the user's stop overridden"}, gate="STOP_OVERRIDDEN",
           needs=(("user",),), flags=("autonomy",)),
    _Order(OTHERS_ASKED_FOR_SECRETS, "NV-FIN-002", {"phishes": "other people's secrets, asked for by the agent"},
           gate="THEIR_SECRETS", flags=("financial",)),
    _Order(MINING_POOL, "NV-FIN-002", {"mines": "cryptocurrency for the skill's author, on the user's machine"},
           gate="MINING", needs=(("run", "start", "launch", "execut", "--", "-o "),), flags=("financial",)),
)


#: the gates of the orders that have one (the others need an address on the line)
_ORDER_GATES = frozenset(o.gate for o in _ORDERS if o.gate is not None)
assert all(o.gate is not None or "://" in o.needs[0] for o in _ORDERS)


def _standing_orders(c: Collector, file: str, lineno: int, line: str, low: str, gates: frozenset[str],
                     find: Callable[[Any], Any], describes: object) -> None:
    """Instructions outside code that hand the agent to someone else or act against the user with no ask: approvals
    switched off in the agent's settings, the user's own folders emptied unasked, whatever a page or mail says obeyed, other skills tapped, a key planted, a file from
    a bare IP run, the agent's instructions swapped for a page's or its task for another, tests bent to pass,
    reported figures altered in silence. Each refuses unless negated, quoted as an example or about attacks (a
    condition before it, "whenever another skill runs", is when the order applies, not a reason to doubt it; a quoted
    block, an example, is left out by the caller)."""
    for order in _ORDERS:
        if order.gate is not None and order.gate not in gates or not all(
                any(w in low for w in words) for words in order.needs):
            continue
        m = find(order.expr)
        if m is None or describes or NEGATION.search(line[:m.start()]) or (
                order.also is not None and not order.also(line, m)):
            continue
        c.hit(order.rule, file, lineno, snippet(line, m.start(), m.end()), column=m.start() + 1, action="refuse",
              **order.evidence)
        c.flags.update(order.flags)
        if order.tag is not None:
            c.tag(order.tag(m), file, lineno)
        if order.fact is not None:
            c.fact(order.fact[0], file, lineno, order.fact[1])


#: a negation earlier in the same sentence (what follows it is forbidden, not asked for)
NEGATION = rx.compile(r"(?i)\b(?:never|not|no|don'?t|doesn'?t|won'?t|cannot|can'?t|avoid|prohibit\w*|forbid\w*|"
                      r"refuse|must\s+not|should\s+not|nothing)\b[^.;!?]*$")
#: what a concealment directive must be hiding to be the technique: an action taken on the user's behalf
_CONCEALED_ACTION = rx.compile(r"(?i)\b(?:send|sent|sending|upload|install|run|runs|running|execut\w*|delet\w*|"
                               r"remov\w*|collect\w*|download\w*|transfer\w*|forward\w*|exfil\w*|cop(?:y|ied|ying)|"
                               r"post(?:s|ed|ing)?\s+(?:it|them|this|the|to)|purchas\w*|pay(?:s|ing|ment)?|charg\w*|"
                               r"fees?|wallet|modif\w*|chang(?:e|es|ed|ing)\s+(?:the\s+)?(?:config|settings|files?)|"
                               r"writ(?:e|es|ing)\s+to|curl|wget|http|access(?:es|ed|ing)?|read(?:s|ing)?\s+(?:the\s+|your\s+)?"
                               r"(?:\.?env|ssh|credentials?|keys?|tokens?|passwords?|files?|history|memory)|record\w*|"
                               r"monitor\w*|track\w*|log(?:s|ged|ging)\s+(?:every|all|the\s+user)|these\s+instructions|"
                               r"this\s+(?:skill|step|instruction|section|action|request|command))")
#: a negation that governs the verb right after it ("never log, print or send"), not a phrase that only
#: looks like one ("never mind the warnings, and send")
_NEGATED_VERB = rx.compile(r"(?i)\b(?:never|don'?t|do\s+not|must\s+not|should\s+not|cannot|can'?t|won'?t)\s+"
                           r"(?!mind\b|hesitate\b)(?:[\w-]+,?\s+(?:or\s+|and\s+|nor\s+)?){0,3}$")
#: a negation that does not negate the deception ("don't hesitate to …", "no matter what")
_DECEIVE_NEGATION_BAIT = rx.compile(r"(?i)\b(?:no\s+matter|not\s+only|don'?t\s+hesitate|never\s+mind)\b[^.;!?]*$")
_RISKY_CONTEXT = rx.compile(r"(?i)\b(?:send|sent|upload|install|run|running|execut|delet|collect|download|credential|"
                            r"key|token|password|secret|data|file|command|script|url|http|curl|wget|these\s+"
                            r"instructions|this\s+(?:skill|step|instruction|section|action|request|command)|"
                            r"the\s+following|backup|copy|transfer|access|log|record|monitor|track|report|forward|"
                            r"exfil|memory|history|conversation|message|payment|purchase|wallet|fee|charge)")


class _Lazy:
    """A truth value computed on first use (most lines never need it)."""

    def __init__(self, fn: Callable[[], bool]) -> None:
        self.fn = fn
        self.value: bool | None = None

    def __bool__(self) -> bool:
        if self.value is None:
            self.value = self.fn()
        return self.value


DESCRIBES_ATTACKS = rx.compile(
    r"(?i)\b(?:malicious|attacks?|malware|phishing|scam\w*|stealers?|threat\s+actors?|detect\w*|flag(?:s|ged)?|"
    r"red\s+flags?|indicators?|suspicious|warns?\s+(?:about|against|when))\b")


def describes_attacks(c: Collector, line: str) -> bool:
    """The line talks about attacks (a scanner's documentation), or the skill is a security tool."""
    return c.security_tool or bool(DESCRIBES_ATTACKS.search(line))


#: cheap literal prefilters (on the lower-cased line) before the credential-send shape is tried
_CRED_WORDS = (".ssh", "id_rsa", "id_ed", "id_ecdsa", ".aws", "/gh/", "git-cred", ".netrc", ".npmrc", ".pypirc", ".docker",
               ".kube", ".gnupg", "wallet", "login data", "logins.json", "key3", "key4", ".openclaw", ".clawdbot", ".vault",
               ".pgpass", "mcp.json", "claude_desktop", ".codex", ".claude.json", ".env", "private", "seed", "mnemonic",
               "recovery", "browser", "saved pass", "keychain", "environment", "env var", "api key", "token", "secret",
               "password", "credential", "card number", "inhalt", "contenu", "contenido", "cookies", "history.db",
               "places.sqlite")
_DESTINATION_WORDS = ("://", "@", "[.]", "query", "param", "request", "payload", "api call", "ticket", "issue", "mail",
                      "message", "bcc", "webhook", "field", "analytic", "telemetry", "endpoint", "collector", "commit",
                      "pull", "pr ", "gist", "public", "push", "argument", "tool call", "readme", "html comment", "changelog")
#: the name of the credential words among the gates (:func:`_credential_send`'s first gate, the same words)
_CRED = "_CRED_WORDS"
#: every gate in one pass: which gates' words occur in a line (one RE2 set search instead of one search per gate)
_GATE_SET = rx.LiteralSets({**GATES, _CRED: _CRED_WORDS})
_CRED_ONLY = frozenset({_CRED})
#: gates whose rules record nothing on a line in code (each is read only outside code, or records only there)
#: (the standing orders' gates among them: :func:`_standing_orders` reads no line in code)
_INERT_IN_CODE = frozenset({"EXFIL_INSTR", "FALSE_APPROVAL", "IMAGE_EXFIL", "PLANTED_FILE", "UNTRUSTED_INPUT", "CRED_READ_INSTR",
                            "PASTE_TERMINAL", _CRED}) | _ORDER_GATES
_DESTINATION_GATE = rx.compile("|".join(re.escape(w) for w in _DESTINATION_WORDS) + r"|\d\.\d")


def _credential_send(c: Collector, file: str, lineno: int, line: str, quoted: object, gates: frozenset[str]) -> None:
    """NV-EXFIL-004 in any language: a credential location is the object of a transfer to a destination.

    Either "verb … location … destination" or "location … verb … destination"; a location that is itself
    the destination ("put the key in .env") is not a send. ``gates``: the line's :data:`_GATE_SET` answer
    (its credential words are this rule's first gate).
    """
    if len(line) > 2000 or _CRED not in gates or not _DESTINATION_GATE.search(line.lower()):
        return
    for loc in CRED_LOCATION.finditer(line):
        if rx.search(r"(?i)\.pub\b|public\s+key", loc.group(0)) or rx.search(
                r"(?i)\b(?:in|into|to|inside|within|from\s+the\s+template\s+to)\s+(?:[\w'-]+\s+){0,3}(?:file\s+)?[`'\"]?$",
                line[max(0, loc.start() - 30):loc.start()]):
            continue
        before = [v for v in TRANSFER_VERB.finditer(line, max(0, loc.start() - 80), loc.start())]
        after = TRANSFER_VERB.search(line, loc.end(), loc.end() + 100)
        verb = before[-1] if before else after
        if verb is None:
            continue
        start = max(loc.end(), verb.end())
        dest = OUTBOUND.search(line, start, start + 160)
        if dest is None or NEGATION.search(line[:min(verb.start(), loc.start())]) or (
                verb.start() >= loc.end() and _NEGATED_VERB.search(line[loc.end():verb.start()])):
            continue  # "never send .env …", or ".env … Never log, print or send the key to …": forbidden
        # quoted data when the instruction itself is quoted (its verb): a path in backticks is how a directive
        # names a file, not a sign that it is an example
        c.hit("NV-EXFIL-004", file, lineno, snippet(line, loc.start(), loc.end()), column=loc.start() + 1,
              action="review" if quoted(verb) else None, shape="credential location sent")  # type: ignore[operator]
        c.flags.add("network_send")
        c.fact("network_send", file, lineno, "prose-cred-send")
        return


#: a concealment match that is about asking: the user is not asked (a confirmation skipped), not deceived
_ASKS_NOT = rx.compile(r"(?i)\b(?:ask(?:ing)?|consulting|confirm(?:ing)?\s+with)\b")


def _conceals(line: str, m: re.Match[str]) -> bool:
    """A concealment match that is one: not excluded by its context, not negated, hiding something."""
    return not CONCEAL_EXCLUDE.search(line[max(0, m.start() - 30): m.end() + 20]) and not _negated(line, m) \
        and _conceals_action(line, m)


def _negated(line: str, m: re.Match[str]) -> bool:
    """"Never … without telling the user" is a safety rule, not concealment."""
    text = m.group(0).lower()
    if not (text.startswith("without") or text.startswith("silently") or text.startswith("quietly")):
        return False
    return bool(NEGATION.search(line[:m.start()]))


def _conceals_action(line: str, m: re.Match[str]) -> bool:
    """A concealment directive must hide something: an action, data or these instructions."""
    window = line[max(0, m.start() - 160): m.end() + 160]
    return bool(_RISKY_CONTEXT.search(window))
