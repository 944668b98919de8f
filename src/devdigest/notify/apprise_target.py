"""Any service Apprise supports (an optional extra: ``pip install 'devdigest[apprise]'``).

The target's ``url_env`` names a variable holding an Apprise URL (``tgram://…``, ``mailto://…``,
``json://…``; they carry credentials, hence the variable). The message is the plain-text body,
fitted to the smallest ``body_maxlen`` of the URL's services so Apprise never has to cut it.
Apprise makes its own requests and retries; a failure is retried on the next run.
"""

from __future__ import annotations

from devdigest.config import NotifyTarget
from devdigest.errors import NotifyError
from devdigest.notify.base import SendContext
from devdigest.notify.body import Style, render_body
from devdigest.notify.digest import Digest

TEXT = Style(str)
DEFAULT_MAXLEN = 32_768


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    try:
        import apprise
    except ImportError as exc:
        raise NotifyError(
            f"{target.name}: Apprise is not installed: pip install 'devdigest[apprise]'"
        ) from exc
    url = ctx.secret(target, "url_env") or ""
    notifier = apprise.Apprise()
    if not notifier.add(url):
        raise NotifyError(f"{target.name}: {target.url_env} is not an Apprise URL Apprise knows")
    limit = min((s.body_maxlen or DEFAULT_MAXLEN for s in notifier), default=DEFAULT_MAXLEN)
    body = render_body(digest, TEXT, limit)
    ok = notifier.notify(title=digest.title, body=body, body_format=apprise.NotifyFormat.TEXT)
    if not ok:
        raise NotifyError(f"{target.name}: Apprise could not deliver the message")
